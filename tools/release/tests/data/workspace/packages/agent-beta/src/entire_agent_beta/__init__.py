__version__: str = "0.1.0"
