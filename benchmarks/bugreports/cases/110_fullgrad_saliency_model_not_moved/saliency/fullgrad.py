# FullGrad saliency: gradients of the input and of every bias, summed into one map.
import torch
import torch.nn as nn
import torch.nn.functional as F


class FullGrad:
    """Compute FullGrad saliency map and full gradient decomposition."""

    def __init__(self, model, im_size=(3, 224, 224)):
        self.model = model
        self.im_size = (1,) + im_size
        self.model.eval()
        self.blockwise_biases = self.model.getBiases()

    def fullGradientDecompose(self, image, target_class=None):
        """Compute full-gradient decomposition for an image."""
        image = image.requires_grad_()
        out, features = self.model.getFeatures(image)

        if target_class is None:
            target_class = out.data.max(1, keepdim=True)[1]

        output_scalar = -1.0 * F.nll_loss(out, target_class.flatten(), reduction="sum")
        input_gradients, *intermed_gradients = torch.autograd.grad(outputs=output_scalar, inputs=[image] + features)

        bias_gradients = []
        for i in range(len(intermed_gradients)):
            if len(intermed_gradients[i].size()) == len(self.im_size):
                bias_gradients.append(intermed_gradients[i] * self.blockwise_biases[i].view(1, -1, 1, 1))
            else:
                bias_gradients.append(intermed_gradients[i] * self.blockwise_biases[i].view(1, -1))
        return input_gradients, bias_gradients

    def _postProcess(self, input, eps=1e-6):
        input = abs(input)
        flatin = input.view((input.size(0), -1))
        temp, _ = flatin.min(1, keepdim=True)
        input = input - temp.unsqueeze(1).unsqueeze(1)
        flatin = input.view((input.size(0), -1))
        temp, _ = flatin.max(1, keepdim=True)
        input = input / (temp.unsqueeze(1).unsqueeze(1) + eps)
        return input

    def saliency(self, image, target_class=None):
        self.model.eval()
        input_grad, bias_grad = self.fullGradientDecompose(image, target_class=target_class)
        grd = input_grad * image
        gradient = self._postProcess(grd).sum(1, keepdim=True)
        cam = gradient
        im_size = image.size()
        for i in range(len(bias_grad)):
            if len(bias_grad[i].size()) == len(im_size):
                temp = self._postProcess(bias_grad[i])
                gradient = F.interpolate(temp, size=(im_size[2], im_size[3]), mode="bilinear", align_corners=True)
                cam += gradient.sum(1, keepdim=True)
        return cam
