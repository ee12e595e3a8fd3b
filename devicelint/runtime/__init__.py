"""The runtime checker: runs fixture scripts and confirms each rule's claimed failure.

Nothing in here may be imported by the lint path at module level: the modules that
need torch (``harness``, ``sim``) import it themselves, and ``fixture``, ``runner``,
``verify`` and ``plugin`` stay torch-free so that ``pytest`` without ``--cuda`` and
``devicelint`` without ``verify`` never pay for (or require) torch.
"""
