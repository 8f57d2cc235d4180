"""The library baseline run through the same battery, so the battery itself is known to pass on a sound optimizer.

(torch's AdamW accepts complex parameters by viewing them as real; the project's optimizers reject them, so the
complex-parameter check skips this one module.)
"""

import torch

OPTIMIZERS = {"AdamW": lambda model: torch.optim.AdamW(model.parameters(), lr=1e-2)}
ACCEPTS_COMPLEX = True
REFUSES_NONFINITE = False  # torch steps on a NaN gradient and leaves NaN weights
