"""Print the README's set-up commands, one per line: the ```bash blocks of "## Set up".
CI runs exactly these, so the README cannot drift from what is tested."""

import re
import sys
from pathlib import Path

text = Path(__file__).resolve().parent.parent.joinpath("README.md").read_text(encoding="utf-8")
section = text.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
blocks = [b.strip() for b in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]
if len(blocks) != 2 or any("\n" in b for b in blocks):
    sys.exit(f"README's Set up section must hold exactly two one-line bash commands, found {blocks!r}")
print("\n".join(blocks))
