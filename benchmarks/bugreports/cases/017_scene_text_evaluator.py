# source: https://github.com/HCIILAB/Scene-Text-Recognition-Recommendations/issues/2
# seen: 2026-11-26
# style: evaluator class (Framework/lib/evaluators.py), losses collected per batch
# expect: DL003 at 44
# why: losses holds CUDA loss tensors; np.sum converts them to NumPy
import time

import numpy as np
import torch


class BaseEvaluator(object):
    def __init__(self, model, metric, use_cuda=True):
        super(BaseEvaluator, self).__init__()
        self.model = model
        self.metric = metric
        self.use_cuda = use_cuda
        self.device = torch.device('cuda' if use_cuda else 'cpu')

    def evaluate(self, data_loader, step=1, print_freq=1, tfLogger=None, dataset=None):
        self.model.eval()

        batch_time = 0.0
        outputs, targets, losses = [], [], []
        end = time.time()
        for i, inputs in enumerate(data_loader):
            input_dict = self._parse_data(inputs)
            output_dict = self._forward(input_dict)

            batch_size = input_dict['images'].size(0)

            total_loss_batch = 0.
            for k, loss in output_dict['losses'].items():
                loss = loss.mean(dim=0, keepdim=True)
                total_loss_batch += loss * batch_size

            outputs.append(output_dict['output']['pred_rec'])
            targets.append(input_dict['rec_targets'])
            losses.append(total_loss_batch)

            batch_time += time.time() - end
            end = time.time()

        losses = np.sum(losses) / (1.0 * (len(data_loader) - 1) * batch_size)
        print('evaluation loss: {:.3f}, {:.1f}s'.format(losses, batch_time))
        return losses

    def _parse_data(self, inputs):
        imgs, label_encs, lengths = inputs
        input_dict = {}
        input_dict['images'] = imgs.to(self.device)
        input_dict['rec_targets'] = label_encs.to(self.device)
        input_dict['rec_lengths'] = lengths
        return input_dict

    def _forward(self, input_dict):
        self.model.eval()
        with torch.no_grad():
            output_dict = self.model(input_dict)
        return output_dict
