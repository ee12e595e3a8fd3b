from zeta.simple_mamba import MambaBlock

__all__ = ["MambaBlock"]
