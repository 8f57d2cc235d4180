"""Mixture-of-experts pieces shared by papers: the router protocol and schedules, the MoE FFN over any router
(a drop-in FFN for :class:`iclr26.lab.transformer.Transformer`), and top-k softmax routing."""

from iclr26.lab.moe.layer import ExpertBank, MoEFFN, moe_aux_loss, moe_ffn, moe_layers
from iclr26.lab.moe.router import LinearRamp, Router, TauSchedule, set_progress
from iclr26.lab.moe.topk import TopKSoftmaxRouter, switch_balance_loss

__all__ = [
    "ExpertBank",
    "LinearRamp",
    "MoEFFN",
    "Router",
    "TauSchedule",
    "TopKSoftmaxRouter",
    "moe_aux_loss",
    "moe_ffn",
    "moe_layers",
    "set_progress",
    "switch_balance_loss",
]
