"""Model zoos outside torchvision: timm and open_clip."""

from __future__ import annotations

LIBRARY = "timm"

CALL_ROOTS = ("timm", "open_clip")
CALL_KINDS = (
    (r"timm\.(models\.)?create_model", "module"),
    (r"open_clip\.create_model\w*", "module"),
)
MODEL_NAMESPACES = frozenset({"timm.models"})
# The one-name model builders the cross-file summaries know (project.py): a host model.
MODEL_BUILDERS = frozenset({"timm.create_model"})
