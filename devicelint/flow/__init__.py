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
module per part: statements, flags (device-flag paths), expressions, calls, methods, moves,
api_calls (torch functions), library (library objects, with devicelint/knowledge/ as the
table), models (model identity and placement), classes (user classes and inlined calls),
recording (loop facts). flags and models are parts the Interpreter holds (`self.flags`,
`self.models`), the others mixins of its class.
"""

from devicelint.flow.facts import Facts
from devicelint.flow.interpreter import Interpreter, infer
from devicelint.flow.nodes import child_nodes, expr_text, walk
from devicelint.flow.classes import reachable

__all__ = ["Facts", "Interpreter", "child_nodes", "expr_text", "infer", "reachable", "walk"]
