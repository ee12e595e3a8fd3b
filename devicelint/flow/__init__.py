"""Device inference: an abstract interpreter over one file.

It runs the module body and every function and method in statement order, keeping an
abstract value (values.Val) for each name and `self` attribute: what kind of thing it is
(model, tensor, loader, device...) and where it lives (host, accelerator, unknown). Calls to
functions and classes of the same file are followed with the caller's values (a bounded,
context-sensitive inline), so `train(model, loader, device)` sees the real model.

The interpreter does not judge: it records facts (module calls, device mixes, moves,
numpy conversions) that the rules read. It runs twice: the first run learns which models
are ever moved or handed to code we cannot see; the second records the facts with that
knowledge. Whenever it cannot tell, a value becomes UNKNOWN, and no rule fires on UNKNOWN.

Layout: facts.py (what rules read), state.py (names and frames), nodes.py (CST helpers),
interpreter.py (entry points; the Interpreter class composed of the parts below), and one
module per part: statements, expressions, calls, methods (the four mixins of its class,
calling each other through `self`), and the parts it holds, each reaching it through a
declared Protocol: flags (device-flag paths, `self.flags`), recording (where the run stands
and the facts it records, `self.recording`), models (model identity and placement,
`self.models`), moves (`self.moves`), library (library objects, with devicelint/knowledge/
as the table, `self.library`), api_calls (torch functions by name, `self.api`), classes
(class summaries, `self.classes`, and inlined calls of user code, `self.user_code`).
"""

from devicelint.flow.facts import Facts
from devicelint.flow.interpreter import Interpreter, infer
from devicelint.flow.nodes import child_nodes, expr_text, walk
from devicelint.flow.classes import reachable

__all__ = ["Facts", "Interpreter", "child_nodes", "expr_text", "infer", "reachable", "walk"]
