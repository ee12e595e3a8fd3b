"""The one schema every knowledge table answers in.

A table is plain data keyed by qualified name (`torch.nn.ReLU`, `numpy.concatenate`), or a
frozenset of names where one bit is all there is to know. `knowledge.lookup(qualname)` gathers
what every table says about one name into an `Entry`.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where a call's result lives.
INPUTS = "inputs"  # where its tensor arguments are (`torch.cat`, `F.relu`)
HOST = "host"  # on the host whatever it is given (`torch.zeros(n)`, a NumPy array)
DEVICE = "device"  # on the accelerator (`torch.cuda.FloatTensor`)
ARG = "arg"  # where a device argument says (`torch.zeros(n, device=d)`)
PLACES = (INPUTS, HOST, DEVICE, ARG)


@dataclass(frozen=True)
class Entry:
    """What a library name does to devices. None: the tables do not say."""

    qualname: str
    library: str = ""
    kind: str | None = None  # the library-object kind the inference follows (see knowledge.calls)
    returns_self: bool = False  # a method that hands back its receiver (`Module.eval`)
    moves_in_place: bool = False  # `.to()` moves the object itself and returns it (`BatchEncoding`)
    result_place: str | None = None  # one of PLACES
    converts_to_numpy: bool = False  # hands its inputs to NumPy: fails on a device tensor
    runs_module: bool = False  # runs the module it is given (`torch.jit.trace`), never moves it
    owns_weights: bool | None = None  # a module class with parameters or buffers
    moves_itself_when_told: bool = False  # places itself when an argument says so
    manages_placement: bool = False  # places what it is given (DDP, accelerate, Lightning)
    is_module_class: bool = False  # an `nn.Module` class
    is_loss_without_weights: bool = False  # a parameter-free module (loss, activation, pooling)


@dataclass(frozen=True)
class BaseFacts:
    """What a library base class makes of a class derived from it."""

    module: bool = False  # instances are `nn.Module`s
    weights: bool = False  # the base itself brings parameters
    dataset: bool = False  # a torch Dataset
    framework: bool = False  # a framework runs it and places its inputs (Lightning)
