"""The version and the project URL, in one place for the package and the User-Agent."""

__version__ = "0.1.0"
PROJECT_URL = "https://github.com/assay-research/assay"
