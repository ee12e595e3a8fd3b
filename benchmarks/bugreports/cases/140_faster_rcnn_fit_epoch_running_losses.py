# source: https://github.com/bubbliiiing/faster-rcnn-pytorch/issues/27
# seen: 2026-11-27
# style: detection training script (train.py, 2020): fit_ont_epoch(net, epoch, ...) drives a FasterRCNNTrainer's train_step over a NumPy batch generator with a tqdm bar, then a validation pass; a __main__ block with hard-coded settings (Cuda = True), a frozen-backbone stage and an unfrozen stage
# expect: DL010 at 45, 46, 47, 48, 49
# also-ok: DL007 at 39, 67, 106
# also-ok: DL012 at 104
# also-ok: DL013 at 51, 52, 53, 54, 55, 75
# why: train_step returns the five loss tensors of the step; `total_loss += total` and the four `*_loss += ...` keep each step's autograd graph alive for the whole epoch -> the unfrozen stage is "Killed" (host memory); the reporter's fix: `loss += float(loss)`-style accumulation
import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.optim as optim
from torch.autograd import Variable
from tqdm import tqdm

from nets.frcnn import FasterRCNN
from nets.frcnn_training import FasterRCNNTrainer, Generator


def get_lr(optimizer):
    for param_group in optimizer.param_groups:
        return param_group['lr']


def fit_ont_epoch(net, epoch, epoch_size, epoch_size_val, gen, genval, Epoch, cuda):
    total_loss = 0
    rpn_loc_loss = 0
    rpn_cls_loss = 0
    roi_loc_loss = 0
    roi_cls_loss = 0
    val_toal_loss = 0
    with tqdm(total=epoch_size, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3) as pbar:
        for iteration, batch in enumerate(gen):
            if iteration >= epoch_size:
                break
            imgs, boxes, labels = batch[0], batch[1], batch[2]
            with torch.no_grad():
                if cuda:
                    imgs = Variable(torch.from_numpy(imgs).type(torch.FloatTensor)).cuda()
                else:
                    imgs = Variable(torch.from_numpy(imgs).type(torch.FloatTensor))

            losses = train_util.train_step(imgs, boxes, labels, 1)
            rpn_loc, rpn_cls, roi_loc, roi_cls, total = losses
            total_loss += total
            rpn_loc_loss += rpn_loc
            rpn_cls_loss += rpn_cls
            roi_loc_loss += roi_loc
            roi_cls_loss += roi_cls

            pbar.set_postfix(**{'total': total_loss.item() / (iteration + 1),
                                'rpn_loc': rpn_loc_loss.item() / (iteration + 1),
                                'rpn_cls': rpn_cls_loss.item() / (iteration + 1),
                                'roi_loc': roi_loc_loss.item() / (iteration + 1),
                                'roi_cls': roi_cls_loss.item() / (iteration + 1),
                                'lr': get_lr(optimizer)})
            pbar.update(1)

    print('Start Validation')
    with tqdm(total=epoch_size_val, desc=f'Epoch {epoch + 1}/{Epoch}', postfix=dict, mininterval=0.3) as pbar:
        for iteration, batch in enumerate(genval):
            if iteration >= epoch_size_val:
                break
            imgs, boxes, labels = batch[0], batch[1], batch[2]
            with torch.no_grad():
                if cuda:
                    imgs = Variable(torch.from_numpy(imgs).type(torch.FloatTensor)).cuda()
                else:
                    imgs = Variable(torch.from_numpy(imgs).type(torch.FloatTensor))

                train_util.optimizer.zero_grad()
                losses = train_util.forward(imgs, boxes, labels, 1)
                _, _, _, _, val_total = losses
                val_toal_loss += val_total
            pbar.set_postfix(**{'total_loss': val_toal_loss.item() / (iteration + 1)})
            pbar.update(1)

    print('Finish Validation')
    print('Epoch:' + str(epoch + 1) + '/' + str(Epoch))
    print('Total Loss: %.4f || Val Loss: %.4f ' % (total_loss / (epoch_size + 1), val_toal_loss / (epoch_size_val + 1)))
    print('Saving state, iter:', str(epoch + 1))
    torch.save(model.state_dict(), 'logs/Epoch%d-Total_Loss%.4f-Val_Loss%.4f.pth' % ((epoch + 1), total_loss / (epoch_size + 1), val_toal_loss / (epoch_size_val + 1)))


if __name__ == "__main__":
    Cuda = True
    NUM_CLASSES = 20
    IMAGE_SHAPE = [600, 600, 3]
    BACKBONE = "resnet50"
    model = FasterRCNN(NUM_CLASSES, backbone=BACKBONE)

    model_path = 'model_data/voc_weights_resnet.pth'
    print('Loading weights into state dict...')
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    model_dict = model.state_dict()
    pretrained_dict = torch.load(model_path, map_location=device)
    pretrained_dict = {k: v for k, v in pretrained_dict.items() if np.shape(model_dict[k]) == np.shape(v)}
    model_dict.update(pretrained_dict)
    model.load_state_dict(model_dict)
    print('Finished!')

    net = model.train()
    if Cuda:
        net = torch.nn.DataParallel(model)
        cudnn.benchmark = True
        net = net.cuda()

    annotation_path = '2007_train.txt'
    val_split = 0.1
    with open(annotation_path) as f:
        lines = f.readlines()
    np.random.seed(10101)
    np.random.shuffle(lines)
    np.random.seed(None)
    num_val = int(len(lines) * val_split)
    num_train = len(lines) - num_val

    if True:
        lr = 1e-4
        Init_Epoch = 0
        Freeze_Epoch = 50
        optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
        lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.95)
        gen = Generator(lines[:num_train], (IMAGE_SHAPE[0], IMAGE_SHAPE[1])).generate()
        gen_val = Generator(lines[num_train:], (IMAGE_SHAPE[0], IMAGE_SHAPE[1])).generate()
        epoch_size = num_train
        epoch_size_val = num_val
        for param in model.extractor.parameters():
            param.requires_grad = False
        model.freeze_bn()
        train_util = FasterRCNNTrainer(model, optimizer)
        for epoch in range(Init_Epoch, Freeze_Epoch):
            fit_ont_epoch(net, epoch, epoch_size, epoch_size_val, gen, gen_val, Freeze_Epoch, Cuda)
            lr_scheduler.step()

    if True:
        lr = 1e-5
        Freeze_Epoch = 50
        Unfreeze_Epoch = 100
        optimizer = optim.Adam(net.parameters(), lr, weight_decay=5e-4)
        lr_scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.95)
        gen = Generator(lines[:num_train], (IMAGE_SHAPE[0], IMAGE_SHAPE[1])).generate()
        gen_val = Generator(lines[num_train:], (IMAGE_SHAPE[0], IMAGE_SHAPE[1])).generate()
        epoch_size = num_train
        epoch_size_val = num_val
        for param in model.extractor.parameters():
            param.requires_grad = True
        model.freeze_bn()
        train_util = FasterRCNNTrainer(model, optimizer)
        for epoch in range(Freeze_Epoch, Unfreeze_Epoch):
            fit_ont_epoch(net, epoch, epoch_size, epoch_size_val, gen, gen_val, Unfreeze_Epoch, Cuda)
            lr_scheduler.step()
