# source: https://github.com/zoogzog/chexnet/issues/12
# seen: 2026-11-27
# style: trainer class of static-style methods (ChexnetTrainer.py): train() builds a DenseNet wrapped in DataParallel(...).cuda(), loaders, Adam + ReduceLROnPlateau, an optional checkpoint resume, then epochTrain / epochVal per epoch; epochVal returns the mean loss tensor the scheduler steps on (rebuilt with non_blocking= where the 2018 code had async=)
# expect: DL010 at 102
# also-ok: DL009 at 54
# also-ok: DL012 at 32
# also-ok: DL007 at 28, 29, 30, 32, 77, 96
# also-ok: DL013 at 104
# why: `losstensorMean += losstensor` sums the live validation loss tensors (volatile= is ignored since 0.4, so each carries its graph and activations) over the whole validation epoch -> the reporter runs out of GPU memory at the end of the first epoch; the answer: unpack the value
import time

import numpy as np
import torch
import torch.backends.cudnn as cudnn
import torch.optim as optim
import torchvision.transforms as transforms
from torch.optim.lr_scheduler import ReduceLROnPlateau
from torch.utils.data import DataLoader
from sklearn.metrics import roc_auc_score

from DensenetModels import DenseNet121, DenseNet169, DenseNet201
from DatasetGenerator import DatasetGenerator


class ChexnetTrainer():

    def train(pathDirData, pathFileTrain, pathFileVal, nnArchitecture, nnIsTrained, nnClassCount, trBatchSize, trMaxEpoch, transResize, transCrop, launchTimestamp, checkpoint):
        if nnArchitecture == 'DENSE-NET-121': model = DenseNet121(nnClassCount, nnIsTrained).cuda()
        elif nnArchitecture == 'DENSE-NET-169': model = DenseNet169(nnClassCount, nnIsTrained).cuda()
        elif nnArchitecture == 'DENSE-NET-201': model = DenseNet201(nnClassCount, nnIsTrained).cuda()

        model = torch.nn.DataParallel(model).cuda()

        normalize = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        transformList = []
        transformList.append(transforms.RandomResizedCrop(transCrop))
        transformList.append(transforms.RandomHorizontalFlip())
        transformList.append(transforms.ToTensor())
        transformList.append(normalize)
        transformSequence = transforms.Compose(transformList)

        datasetTrain = DatasetGenerator(pathImageDirectory=pathDirData, pathDatasetFile=pathFileTrain, transform=transformSequence)
        datasetVal = DatasetGenerator(pathImageDirectory=pathDirData, pathDatasetFile=pathFileVal, transform=transformSequence)

        dataLoaderTrain = DataLoader(dataset=datasetTrain, batch_size=trBatchSize, shuffle=True, num_workers=24, pin_memory=True)
        dataLoaderVal = DataLoader(dataset=datasetVal, batch_size=trBatchSize, shuffle=False, num_workers=24, pin_memory=True)

        optimizer = optim.Adam(model.parameters(), lr=0.0001, betas=(0.9, 0.999), eps=1e-08, weight_decay=1e-5)
        scheduler = ReduceLROnPlateau(optimizer, factor=0.1, patience=5, mode='min')

        loss = torch.nn.BCELoss(size_average=True)

        if checkpoint != None:
            modelCheckpoint = torch.load(checkpoint)
            model.load_state_dict(modelCheckpoint['state_dict'])
            optimizer.load_state_dict(modelCheckpoint['optimizer'])

        lossMIN = 100000

        for epochID in range(0, trMaxEpoch):
            ChexnetTrainer.epochTrain(model, dataLoaderTrain, optimizer, scheduler, trMaxEpoch, nnClassCount, loss)
            lossVal, losstensor = ChexnetTrainer.epochVal(model, dataLoaderVal, optimizer, scheduler, trMaxEpoch, nnClassCount, loss)

            timestampEND = time.strftime("%d%m%Y") + '-' + time.strftime("%H%M%S")
            scheduler.step(losstensor.item())

            if lossVal < lossMIN:
                lossMIN = lossVal
                torch.save({'epoch': epochID + 1, 'state_dict': model.state_dict(), 'best_loss': lossMIN, 'optimizer': optimizer.state_dict()}, 'm-' + launchTimestamp + '.pth.tar')
                print('Epoch [' + str(epochID + 1) + '] [save] [' + timestampEND + '] loss= ' + str(lossVal))
            else:
                print('Epoch [' + str(epochID + 1) + '] [----] [' + timestampEND + '] loss= ' + str(lossVal))

    def epochTrain(model, dataLoader, optimizer, scheduler, epochMax, classCount, loss):
        model.train()
        for batchID, (input, target) in enumerate(dataLoader):
            target = target.cuda(non_blocking=True)
            varInput = torch.autograd.Variable(input)
            varTarget = torch.autograd.Variable(target)
            varOutput = model(varInput)

            lossvalue = loss(varOutput, varTarget)

            optimizer.zero_grad()
            lossvalue.backward()
            optimizer.step()

    def epochVal(model, dataLoader, optimizer, scheduler, epochMax, classCount, loss):
        model.eval()

        lossVal = 0
        lossValNorm = 0
        losstensorMean = 0

        for i, (input, target) in enumerate(dataLoader):
            target = target.cuda(non_blocking=True)
            varInput = torch.autograd.Variable(input, volatile=True)
            varTarget = torch.autograd.Variable(target, volatile=True)
            varOutput = model(varInput)

            losstensor = loss(varOutput, varTarget)
            losstensorMean += losstensor

            lossVal += losstensor.item()
            lossValNorm += 1

        outLoss = lossVal / lossValNorm
        losstensorMean = losstensorMean / lossValNorm

        return outLoss, losstensorMean

    def computeAUROC(dataGT, dataPRED, classCount):
        outAUROC = []
        datanpGT = dataGT.cpu().numpy()
        datanpPRED = dataPRED.cpu().numpy()
        for i in range(classCount):
            outAUROC.append(roc_auc_score(datanpGT[:, i], datanpPRED[:, i]))
        return outAUROC
