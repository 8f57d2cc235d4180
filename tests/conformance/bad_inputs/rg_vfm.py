"""Bad input to the RG-VFM manifolds, losses, nets and sampler (arXiv 2502.12981)."""

import torch

from iclr26.generative.rg_vfm import EndpointMLP, Lorentz, ManifoldFlowSampler, RFMLoss, RGVFMLoss, Sphere

S2 = Sphere(2)
H2 = Lorentz(2)
_X = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
_OFF = torch.tensor([[0.0, 0.0, 1.5], [1.0, 0.0, 0.0]])
_T = torch.tensor([0.2, 0.5])


def _net(x, t):
    return x


CASES = [
    (lambda: RGVFMLoss(S2)(_net, _OFF, _X, _T), ValueError, ["x0", "off the manifold", "Sphere"]),
    (lambda: RFMLoss(H2)(_net, H2.origin(2), _X, _T), ValueError, ["x1", "off the manifold", "Lorentz"]),
    (lambda: RGVFMLoss(S2)(_net, _X, _X, torch.tensor([0.2, 1.0])), ValueError, ["t", "[0, 1)"]),
    (lambda: RGVFMLoss(S2)(_net, _X, _X, torch.tensor([-0.1, 0.5])), ValueError, ["t", "[0, 1)"]),
    (lambda: RGVFMLoss(S2)(_net, _X, _X[:1], _T), ValueError, ["same batch size"]),
    (lambda: RFMLoss(S2)(_net, _X, _X, _T[:1]), ValueError, ["t", "shape"]),
    (lambda: RGVFMLoss(S2, variant="ambient"), ValueError, ["variant", "intrinsic"]),
    (lambda: ManifoldFlowSampler(S2, _net, mode="noise"), ValueError, ["mode", "endpoint"]),
    (lambda: ManifoldFlowSampler(S2, _net).sample(4, steps=0), ValueError, ["steps", ">= 1"]),
    (lambda: Sphere(2, radius=-1.0), ValueError, ["radius", "> 0"]),
    (lambda: EndpointMLP(S2, 16, 2, head="linear"), ValueError, ["head"]),
    (lambda: S2.check_point(torch.zeros(3, 4)), ValueError, ["shape", "Sphere"]),
]
