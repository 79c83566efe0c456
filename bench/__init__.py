"""Benchmarks and load tests of the judge: tooling for its developers, not part of the product.

Not in the wheel and never imported by ``app`` or ``sandbox`` (``judge bench`` and ``judge
loadtest`` load it from a source checkout). It may use the sandbox's internals: it measures them.
"""
