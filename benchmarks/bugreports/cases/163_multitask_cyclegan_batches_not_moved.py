# source: https://github.com/eveningglow/multitask-CycleGAN/issues/3
# seen: 2026-11-27
# style: GAN training entry point (train.py) with argparse: generators, discriminators and an auxiliary gender classifier imported from model.py and moved with .cuda(), a Solver-less main loop over two DataLoaders (a labelled face loader for the classifier step, a paired male/female loader for the CycleGAN step), Adam optimizers, image dumps every N steps
# expect: DL002 at 69, 77, 78, 81, 84, 95
# also-ok: DL007 at 51, 52, 53, 54, 55, 96, 97
# also-ok: DL008 at 96, 97
# also-ok: DL011 at 95
# also-ok: DL013 at 106
# why: every network is moved with .cuda() but neither loop moves its batch: image/label from the classifier loader and male_img/female_img from the domain loader go into cuda networks as CPU tensors -> "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same"; the answer adds image, label = image.cuda(), label.cuda() and male_img, female_img = male_img.cuda(), female_img.cuda()
import argparse
import itertools
import os

import torch
import torch.nn as nn
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from torchvision.utils import save_image

from dataloader import CelebAGender, CelebAGenderPair
from model import Classifier, Discriminator, Generator


def parse_args():
    parser = argparse.ArgumentParser(description="multitask CycleGAN (gender translation + classification)")
    parser.add_argument("--root", type=str, default="data/celeba")
    parser.add_argument("--img_size", type=int, default=128)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--num_epoch", type=int, default=20)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--lambda_cycle", type=float, default=10.0)
    parser.add_argument("--lambda_cls", type=float, default=1.0)
    parser.add_argument("--result_dir", type=str, default="result")
    parser.add_argument("--weight_dir", type=str, default="weight")
    return parser.parse_args()


def main():
    args = parse_args()
    os.makedirs(args.result_dir, exist_ok=True)
    os.makedirs(args.weight_dir, exist_ok=True)

    transform = transforms.Compose([
        transforms.Resize((args.img_size, args.img_size)),
        transforms.ToTensor(),
        transforms.Normalize(mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5)),
    ])
    cls_loader = DataLoader(CelebAGender(args.root, transform), batch_size=args.batch_size, shuffle=True)
    pair_loader = DataLoader(CelebAGenderPair(args.root, transform), batch_size=args.batch_size, shuffle=True)

    G_m2f = Generator().cuda()
    G_f2m = Generator().cuda()
    D_m = Discriminator().cuda()
    D_f = Discriminator().cuda()
    C = Classifier().cuda()

    optim_G = torch.optim.Adam(itertools.chain(G_m2f.parameters(), G_f2m.parameters()), lr=args.lr, betas=(0.5, 0.999))
    optim_D = torch.optim.Adam(itertools.chain(D_m.parameters(), D_f.parameters()), lr=args.lr, betas=(0.5, 0.999))
    optim_C = torch.optim.Adam(C.parameters(), lr=args.lr, betas=(0.5, 0.999))

    mse = nn.MSELoss()
    l1 = nn.L1Loss()
    ce = nn.CrossEntropyLoss()

    step = 0
    for epoch in range(args.num_epoch):
        # 1. classifier step on labelled faces
        for iters, (image, label) in enumerate(cls_loader):
            out = C(image)
            cls_loss = ce(out, label)
            optim_C.zero_grad()
            cls_loss.backward()
            optim_C.step()

        # 2. CycleGAN step on unpaired male / female faces
        for iters, (male_img, female_img) in enumerate(pair_loader):
            fake_female = G_m2f(male_img)
            fake_male = G_f2m(female_img)

            # discriminators
            d_real = D_f(female_img)
            d_fake = D_f(fake_female.detach())
            d_loss_f = mse(d_real, torch.ones_like(d_real)) + mse(d_fake, torch.zeros_like(d_fake))
            d_real = D_m(male_img)
            d_fake = D_m(fake_male.detach())
            d_loss_m = mse(d_real, torch.ones_like(d_real)) + mse(d_fake, torch.zeros_like(d_fake))
            optim_D.zero_grad()
            (d_loss_f + d_loss_m).backward()
            optim_D.step()

            # generators: adversarial + cycle + the classifier's view of the fakes
            d_fake_f = D_f(fake_female)
            d_fake_m = D_m(fake_male)
            adv = mse(d_fake_f, torch.ones_like(d_fake_f)) + mse(d_fake_m, torch.ones_like(d_fake_m))
            cycle = l1(G_f2m(fake_female), male_img) + l1(G_m2f(fake_male), female_img)
            female_target = torch.ones(male_img.size(0), dtype=torch.long).cuda()
            male_target = torch.zeros(female_img.size(0), dtype=torch.long).cuda()
            cls = ce(C(fake_female), female_target) + ce(C(fake_male), male_target)
            g_loss = adv + args.lambda_cycle * cycle + args.lambda_cls * cls
            optim_G.zero_grad()
            g_loss.backward()
            optim_G.step()

            step += 1
            if step % 500 == 0:
                print("[epoch %d step %d] D %.4f G %.4f C %.4f" % (epoch, step, (d_loss_f + d_loss_m).item(), g_loss.item(), cls_loss.item()))
                save_image(torch.cat([male_img, fake_female.data.cpu(), female_img, fake_male.data.cpu()]) * 0.5 + 0.5,
                           os.path.join(args.result_dir, "%06d.png" % step), nrow=args.batch_size)

        torch.save(G_m2f.state_dict(), os.path.join(args.weight_dir, "G_m2f_%d.pth" % epoch))
        torch.save(G_f2m.state_dict(), os.path.join(args.weight_dir, "G_f2m_%d.pth" % epoch))


if __name__ == "__main__":
    main()
