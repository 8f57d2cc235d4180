"""iclr26.science: estimators and learners for scientific and tabular data (simulation-based inference, oblique forests, ...).

The common components are importable from here; each paper's package has the full API.
"""

from iclr26.domain_exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "JARFClassifier": "jarf",
        "JARFRegressor": "jarf",
        "EJOPTransformer": "jarf",
        "LBFPosterior": "npe_lbf",
        "build_lbf": "npe_lbf",
        "BioBO": "biobo",
        "PiBO": "biobo",
        "ExactGP": "biobo",
        "make_perturbation_landscape": "biobo",
        "IGRep": "ig_fwi",
        "SirenRep": "ig_fwi",
        "PixelGrid": "ig_fwi",
        "fwi_fit": "ig_fwi",
        "representation_ntk": "ig_fwi",
        "Fisale": "fisale",
        "LatentALEGrid": "fisale",
        "GridProjection": "fisale",
        "GalerkinAttention": "fisale",
        "PCMBlock": "fisale",
        "GATLayer": "fisale",
        "TransolverLite": "fisale",
        "PointNetBaseline": "fisale",
        "FSIDataConfig": "fisale",
        "make_fsi_dataset": "fisale",
        "IBSimulator": "fisale",
        "per_channel_relative_l1": "fisale",
        "ARTracker": "fartrack",
        "InterFrameSparsifier": "fartrack",
        "Tracker": "fartrack",
        "self_distill_loss": "fartrack",
        "siou_loss": "fartrack",
        "ao_sr": "fartrack",
        "CSMEncoder2d": "overtone",
        "CSMDecoder2d": "overtone",
        "CKMEncoder2d": "overtone",
        "CKMDecoder2d": "overtone",
        "PatchModulatedEmulator": "overtone",
        "pi_resize": "overtone",
        "harmonic_peak_ratio": "overtone",
    },
)
