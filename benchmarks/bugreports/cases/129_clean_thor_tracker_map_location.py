# source: https://github.com/xl-sr/THOR/issues/5 (code after the fix)
# seen: 2026-11-26
# style: tracker module (trackers/tracker.py): a Tracker base class that picks self.device from torch.cuda.is_available(), template-memory helpers, and SiamFC / SiamRPN / SiamMask subclasses that build their network and load its weights in a setup method
# clean: no finding expected (the tracker after the maintainer's update: torch.load maps the storages to the CPU when the tracker runs on the CPU)
import abc
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn.functional as F

from benchmark.bench_utils.bbox_helper import cxy_wh_2_rect
from trackers.SiamFC.net import SiamFC
from trackers.SiamRPN.net import SiamRPNBIG
from trackers.SiamMask.net import SiamMaskCustom


class Tracker(metaclass=abc.ABCMeta):
    def __init__(self):
        use_cuda = torch.cuda.is_available()
        self.device = torch.device("cuda" if use_cuda else "cpu")
        self.mask = False
        self.temp_mem = None

    @abc.abstractmethod
    def init_func(self, im, pos, sz):
        raise NotImplementedError

    @abc.abstractmethod
    def track_func(self, state, im):
        raise NotImplementedError

    def setup(self, model_path, temp_mem):
        net = self.make_net()
        net.load_state_dict(torch.load(model_path, map_location=('cpu' if str(self.device) == 'cpu' else None)))
        net.eval().to(self.device)
        self.model = net
        self.temp_mem = temp_mem
        return net

    def make_net(self):
        raise NotImplementedError

    def temp_sim(self, t1, t2):
        t1 = t1.view(1, -1)
        t2 = t2.view(1, -1)
        return F.cosine_similarity(t1, t2).item()

    def init(self, im, init_rect):
        target_pos = np.array([init_rect[0] + init_rect[2] / 2, init_rect[1] + init_rect[3] / 2])
        target_sz = np.array([init_rect[2], init_rect[3]])
        state = self.init_func(im, target_pos, target_sz)
        self.temp_mem.setup(im, target_pos, target_sz)
        return state

    def track(self, im, state):
        state = self.track_func(state, im)
        self.temp_mem.update(im, state['crop'], state['target_pos'], state['target_sz'])
        return state


class SiamFC_Tracker(Tracker):
    def __init__(self, cfg):
        super(SiamFC_Tracker, self).__init__()
        self.cfg = cfg

    def make_net(self):
        return SiamFC()

    def init_func(self, im, pos, sz):
        state = {'im_h': im.shape[0], 'im_w': im.shape[1], 'target_pos': pos, 'target_sz': sz}
        kernel = self.model.feature(torch.zeros(1, 3, 127, 127, device=self.device))
        state['kernel'] = kernel
        return state

    def track_func(self, state, im):
        x = torch.from_numpy(im).permute(2, 0, 1).unsqueeze(0).float().to(self.device)
        response = self.model.connect(state['kernel'], self.model.feature(x))
        state['score'] = response.max().item()
        state['crop'] = x
        return state


class SiamRPN_Tracker(Tracker):
    def __init__(self, cfg):
        super(SiamRPN_Tracker, self).__init__()
        self.cfg = cfg

    def make_net(self):
        return SiamRPNBIG()

    def init_func(self, im, pos, sz):
        return {'im_h': im.shape[0], 'im_w': im.shape[1], 'target_pos': pos, 'target_sz': sz}

    def track_func(self, state, im):
        x = torch.from_numpy(im).permute(2, 0, 1).unsqueeze(0).float().to(self.device)
        delta, score = self.model(x)
        state['score'] = score.max().item()
        state['crop'] = x
        return state


class SiamMask_Tracker(Tracker):
    def __init__(self, cfg):
        super(SiamMask_Tracker, self).__init__()
        self.cfg = cfg
        self.mask = True

    def make_net(self):
        return SiamMaskCustom(anchors=SimpleNamespace(**self.cfg['anchors']))

    def init_func(self, im, pos, sz):
        return {'im_h': im.shape[0], 'im_w': im.shape[1], 'target_pos': pos, 'target_sz': sz}

    def track_func(self, state, im):
        x = torch.from_numpy(im).permute(2, 0, 1).unsqueeze(0).float().to(self.device)
        score, delta, mask = self.model.track_mask(x)
        state['score'] = score.max().item()
        state['mask'] = mask.squeeze().sigmoid().cpu().numpy()
        state['crop'] = x
        state['ploygon'] = cxy_wh_2_rect(state['target_pos'], state['target_sz'])
        return state
