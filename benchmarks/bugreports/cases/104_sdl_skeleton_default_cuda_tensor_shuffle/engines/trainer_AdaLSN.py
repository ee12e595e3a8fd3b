import logging
import os
import sys
import time

import numpy as np
import torch
from torch.autograd import Variable

log_format = '%(asctime)s %(message)s'
logging.basicConfig(stream=sys.stdout, level=logging.INFO, format=log_format, datefmt='%m/%d %I:%M:%S %p')


class Trainer(object):
    def __init__(self, network, optimizer, dataloader, args):
        self.args = args
        self.network = network
        self.optimizer = optimizer
        self.dataloader = dataloader
        if not os.path.exists('weights'):
            os.makedirs('weights')
        self.timeformat = '%Y-%m-%d %H:%M:%S'

    def train(self):
        lossAcc = 0.0
        lossFuse = 0.0
        self.network.eval()  # if backbone has BN layers, freeze them
        dataiter = iter(self.dataloader)
        for step in range(self.args.resume_iter, self.args.max_step):
            losses = []
            for _ in range(self.args.iter_size):
                try:
                    data, target = next(dataiter)
                except StopIteration:
                    dataiter = iter(self.dataloader)
                    data, target = next(dataiter)
                data, target = data.cuda(self.args.gpu_id), target.cuda(self.args.gpu_id)
                data, target = Variable(data, requires_grad=False), Variable(target, requires_grad=False)
                loss, fuse_loss = self.network(data, target)
                if np.isnan(float(loss.item())):
                    raise ValueError('loss is nan while training')
                losses.append(loss)
                lossAcc += loss.item()
                lossFuse += fuse_loss.item()
            bLoss = torch.mean(torch.stack(losses))
            self.optimizer.zero_grad()
            bLoss.backward()
            self.optimizer.step()
            if (step > 0) and (step % self.args.lr_step) == 0:
                self.adjustLR()
            if (step + 1) % self.args.disp_interval == 0:
                timestr = time.strftime(self.timeformat, time.localtime())
                logging.info('{} iter={} totloss={:<8.2f} fuseloss={:<8.2f}'.format(
                    timestr, step + 1, lossAcc / self.args.disp_interval / self.args.iter_size,
                    lossFuse / self.args.disp_interval / self.args.iter_size))
                lossAcc = 0.0
                lossFuse = 0.0
            if (step + 1) % self.args.save_interval == 0:
                torch.save(self.network.state_dict(), './Ada_LSN/weights/inception_sklarge/skel_{}.pth'.format(step + 1))
        return lossAcc

    def adjustLR(self):
        for param_group in self.optimizer.param_groups:
            param_group['lr'] *= self.args.lr_gamma
