"""The public transformations: thin wrappers over the compiler's driver."""
