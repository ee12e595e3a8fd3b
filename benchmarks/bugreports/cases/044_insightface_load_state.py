# source: https://github.com/TreB1eN/InsightFace_Pytorch/issues/113
# seen: 2026-11-26
# style: learner class (Learner.py load_state) driven by a config object whose device is cpu
# expect: DL009 at 35
# why: the GPU-trained checkpoint is loaded with torch.load(...) and no map_location on a CPU-only machine
# also-ok: DL009 at 37
# also-ok: DL009 at 38
import torch
from torch import optim

from model import Backbone, Arcface, MobileFaceNet, l2_norm


class face_learner(object):
    def __init__(self, conf, inference=False):
        print(conf)
        if conf.use_mobilfacenet:
            self.model = MobileFaceNet(conf.embedding_size).to(conf.device)
            print('MobileFaceNet model generated')
        else:
            self.model = Backbone(conf.net_depth, conf.drop_ratio, conf.net_mode).to(conf.device)
            print('{}_{} model generated'.format(conf.net_mode, conf.net_depth))

        if not inference:
            self.head = Arcface(embedding_size=conf.embedding_size, classnum=conf.class_num).to(conf.device)
            self.optimizer = optim.SGD([{'params': self.model.parameters(), 'weight_decay': 5e-4}], lr=conf.lr, momentum=conf.momentum)
        else:
            self.threshold = conf.threshold

    def load_state(self, conf, fixed_str, from_save_folder=False, model_only=False):
        if from_save_folder:
            save_path = conf.save_path
        else:
            save_path = conf.model_path
        self.model.load_state_dict(torch.load(save_path / 'model_{}'.format(fixed_str)))
        if not model_only:
            self.head.load_state_dict(torch.load(save_path / 'head_{}'.format(fixed_str)))
            self.optimizer.load_state_dict(torch.load(save_path / 'optimizer_{}'.format(fixed_str)))

    def infer(self, conf, faces, target_embs, tta=False):
        embs = []
        for img in faces:
            embs.append(self.model(conf.test_transform(img).to(conf.device).unsqueeze(0)))
        source_embs = torch.cat(embs)
        diff = source_embs.unsqueeze(-1) - target_embs.transpose(1, 0).unsqueeze(0)
        dist = torch.sum(torch.pow(diff, 2), dim=1)
        minimum, min_idx = torch.min(dist, dim=1)
        min_idx[minimum > self.threshold] = -1
        return min_idx, minimum
