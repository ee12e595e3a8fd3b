"""torchaudio: its functional ops compute with every tensor they are handed, so those tensors
must share a device (`F.phase_vocoder(spec, rate, phase_advance)`), as `torch.nn.functional`'s do."""

from __future__ import annotations

LIBRARY = "torchaudio"

# qualified-name prefixes of functions that combine all their tensor arguments
COMBINING_PREFIXES = ("torchaudio.functional.",)
