# the demo's predictor module (demo/predictor.py), imported by visualize_result.py
import torch

from fastreid.modeling.meta_arch import build_model
from fastreid.utils.checkpoint import Checkpointer


class FeatureExtractionDemo(object):
    def __init__(self, cfg, parallel=False):
        self.cfg = cfg
        self.model = build_model(cfg)
        self.model.eval()
        Checkpointer(self.model).load(cfg.MODEL.WEIGHTS)
        self.model.to(cfg.MODEL.DEVICE)

    def run_on_loader(self, data_loader):
        for batch in data_loader:
            images = batch["images"].to(self.cfg.MODEL.DEVICE)
            with torch.no_grad():
                predictions = self.model(images)
            predictions = torch.nn.functional.normalize(predictions, dim=1)
            yield predictions, batch["targets"].cpu().numpy(), batch["camids"].cpu().numpy()
