from devicelint.rules.base import Rule


class UnusedNoqa(Rule):
    """A `# noqa: DLnnn` (or `# devicelint: ignore[DLnnn]`) that suppresses nothing.

    ## What it does
    Flags a suppression comment that names a devicelint code whose rule ran on the file
    but found nothing to silence on that line (or, for a comment on a line of its own, on
    the statement below it). Bare `# noqa` is left alone (it may be for another tool), as
    are codes of rules that did not run and prefixes such as `DL00`. Off by default: add
    `--extend-select DL100`. The counterpart of Ruff's `RUF100`.

    ## Why is this bad?
    A stale suppression hides nothing today, but it will hide the next real finding on that
    line: a device bug introduced later is silenced before anyone sees it. It also tells
    readers that the line has a problem it no longer has.

    ## Example
    ```python
    x = torch.randn(8, 4, device=device)
    arr = x.cpu().numpy()  # noqa: DL003
    ```

    ## Use instead
    ```python
    x = torch.randn(8, 4, device=device)
    arr = x.cpu().numpy()
    ```
    """

    code = "DL100"
    name = "unused-noqa"
    default = False
    # The engine reports it after applying suppressions (see engine.analyse): only there is
    # it known which directives silenced something.
    VALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(8, 4).to(device)
arr = x.numpy()  # noqa: DL003
# devicelint: ignore[DL003]
arr2 = x.numpy()
print(arr, arr2)  # noqa
y = x.cpu()  # noqa: E501
""",
    )
    INVALID = (
        """
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.randn(8, 4).to(device)
arr = x.cpu().numpy()  # noqa: DL003  # <--
arr2 = x.numpy()  # noqa: DL003, DL006  (DL006: nothing to silence)  # <--
""",
    )

    def check(self, ctx):
        return iter(())
