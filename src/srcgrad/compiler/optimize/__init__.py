"""Optimizations of lowered and generated code."""
