"""iclr26: methods of 76 ICLR 2026 papers as reusable components, with seeded reproductions of their claims."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("iclr26")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
