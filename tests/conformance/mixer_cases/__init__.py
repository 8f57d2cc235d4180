"""One module per paper that ships sequence mixers: ``MIXERS = {name: factory}``, ``factory(d_model) -> nn.Module``.

A mixer maps (batch, seq, d_model) to (batch, seq, d_model). Optional module-level names:
``NONCAUSAL = {names}`` for bidirectional mixers (the causality check is then skipped for them) and
``SEQ_LENS = (..)`` to add sequence lengths that are awkward for the mixer (not a multiple of its chunk or window).
"""
