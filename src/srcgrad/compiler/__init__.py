"""The source-to-source compiler: the passes are listed, in order, in :mod:`.pipeline`."""
