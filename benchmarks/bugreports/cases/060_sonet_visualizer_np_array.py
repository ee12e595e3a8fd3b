# source: https://github.com/lijx10/SO-Net/issues/41
# seen: 2026-11-26
# style: repo train script (part-seg/train.py) with options object, model wrapper class with get_current_errors(), visdom Visualizer class
# expect: DL003 at 32
# also-ok: DL007 at 77
# also-ok: DL014 at 49, 50, 51, 52, 53, 54
# why: get_current_errors() returns the raw CUDA loss/accuracy tensors; the visualizer appends them to plot_data['Y'] and np.array(...) converts the list -> "can't convert cuda:0 device type tensor to numpy"
import time
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import visdom

from options import Options
from data.shapenet_loader import ShapeNetLoader
from models.segmenter import Model


class Visualizer:
    def __init__(self, opt):
        self.opt = opt
        self.vis = visdom.Visdom(port=opt.display_port)
        self.display_id = opt.display_id

    def plot_current_errors(self, epoch, counter_ratio, opt, errors):
        if not hasattr(self, 'plot_data'):
            self.plot_data = {'X': [], 'Y': [], 'legend': list(errors.keys())}
        self.plot_data['X'].append(epoch + counter_ratio)
        self.plot_data['Y'].append([errors[k] for k in self.plot_data['legend']])
        print(np.array(self.plot_data['Y']))
        self.vis.line(
            X=np.stack([np.array(self.plot_data['X'])] * len(self.plot_data['legend']), 1),
            Y=np.array(self.plot_data['Y']),
            opts={'title': 'loss over time', 'legend': self.plot_data['legend'],
                  'xlabel': 'epoch', 'ylabel': 'loss'},
            win=self.display_id)


class SegModel:
    def __init__(self, opt):
        self.opt = opt
        self.encoder = Model(opt).to(opt.device)
        self.softmax_criteria = nn.CrossEntropyLoss().to(opt.device)
        self.optimizer = torch.optim.Adam(self.encoder.parameters(), lr=opt.lr)

    def set_input(self, input_pc, input_sn, input_label, input_seg, input_node, input_node_knn_I):
        self.input_pc = input_pc.float().to(self.opt.device)
        self.input_sn = input_sn.float().to(self.opt.device)
        self.input_seg = input_seg.long().to(self.opt.device)
        self.input_label = input_label.long().to(self.opt.device)
        self.input_node = input_node.float().to(self.opt.device)
        self.input_node_knn_I = input_node_knn_I.long().to(self.opt.device)

    def optimize(self):
        self.encoder.train()
        self.score_segmenter = self.encoder(self.input_pc, self.input_sn, self.input_node, self.input_node_knn_I,
                                            self.input_label)
        self.loss = self.softmax_criteria(self.score_segmenter, self.input_seg)
        self.optimizer.zero_grad()
        self.loss.backward()
        self.optimizer.step()
        _, predicted_seg = torch.max(self.score_segmenter.data, dim=1, keepdim=False)
        correct_mask = torch.eq(predicted_seg, self.input_seg).float()
        self.train_accuracy_seg = torch.mean(correct_mask)

    def get_current_errors(self):
        return OrderedDict([
            ('train_loss_seg', self.loss.data),
            ('train_accuracy_seg', self.train_accuracy_seg),
        ])


if __name__ == '__main__':
    opt = Options().parse()
    opt.device = torch.device('cuda:0')
    trainset = ShapeNetLoader(opt.dataroot, 'train', opt)
    dataset_size = len(trainset)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=opt.batch_size, shuffle=True,
                                              num_workers=opt.nThreads)
    model = SegModel(opt)
    visualizer = Visualizer(opt)
    for epoch in range(301):
        epoch_iter = 0
        for i, data in enumerate(trainloader):
            iter_start_time = time.time()
            epoch_iter += opt.batch_size
            input_pc, input_sn, input_label, input_seg, input_node, input_node_knn_I = data
            model.set_input(input_pc, input_sn, input_label, input_seg, input_node, input_node_knn_I)
            model.optimize()
            if i % 200 == 0:
                errors = model.get_current_errors()
                visualizer.plot_current_errors(epoch, float(epoch_iter) / dataset_size, opt, errors)
