# source: https://github.com/pyro-ppl/pyro/pull/3264 (code after the PR)
# seen: 2026-11-27
# style: causal-effect example script (examples/contrib/cevae/synthetic.py style) with the model's fit loop inline: argparse main, torch.set_default_device("cuda") under --cuda, synthetic data, a shuffling DataLoader over a TensorDataset built with generator=torch.Generator(device=x.device), an SVI-style training loop and an ATE estimate
# clean: no expectation; the loader is shuffled under a CUDA default device but is handed a generator on the data's device, which is the PR's fix for "Expected a 'cuda' device type for generator but found 'cpu'"
import argparse
import logging

import torch
from torch.utils.data import DataLoader, TensorDataset

import pyro
import pyro.distributions as dist
from pyro.contrib.cevae import Model, Guide
from pyro.infer import SVI, TraceCausalEffect_ELBO
from pyro.optim import ClippedAdam

logging.getLogger("pyro").setLevel(logging.DEBUG)


def generate_data(args):
    z = dist.Bernoulli(0.5).sample([args.num_data])
    x = dist.Normal(z, 5 * z + 3 * (1 - z)).sample([args.feature_dim]).t()
    t = dist.Bernoulli(0.75 * z + 0.25 * (1 - z)).sample()
    y = dist.Bernoulli(logits=3 * (z + 2 * (2 * t - 2))).sample()
    t0_t1 = torch.tensor([[0.0], [1.0]])
    y_t0, y_t1 = dist.Bernoulli(logits=3 * (z + 2 * (2 * t0_t1 - 2))).mean
    true_ite = y_t1 - y_t0
    return x, t, y, true_ite


def fit(model, guide, x, t, y, num_epochs, batch_size, learning_rate, learning_rate_decay, weight_decay):
    dataset = TensorDataset(x, t, y)
    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=torch.Generator(device=x.device))
    num_steps = num_epochs * len(dataloader)
    optim = ClippedAdam({"lr": learning_rate, "weight_decay": weight_decay, "lrd": learning_rate_decay ** (1 / num_steps)})
    svi = SVI(model, guide, optim, TraceCausalEffect_ELBO())
    losses = []
    for epoch in range(num_epochs):
        for x_batch, t_batch, y_batch in dataloader:
            loss = svi.step(x_batch, t_batch, y_batch, size=len(dataset)) / len(dataset)
            losses.append(loss)
        logging.info("epoch {} loss = {:0.6g}".format(epoch, losses[-1]))
    return losses


def main(args):
    if args.cuda:
        torch.set_default_device("cuda")

    pyro.set_rng_seed(args.seed)
    x_train, t_train, y_train, _ = generate_data(args)

    pyro.set_rng_seed(args.seed)
    pyro.clear_param_store()
    config = dict(feature_dim=args.feature_dim, latent_dim=args.latent_dim, hidden_dim=args.hidden_dim,
                  num_layers=args.num_layers, num_samples=10)
    model = Model(config)
    guide = Guide(config)
    fit(model, guide, x_train, t_train, y_train, num_epochs=args.num_epochs, batch_size=args.batch_size,
        learning_rate=args.learning_rate, learning_rate_decay=args.learning_rate_decay, weight_decay=args.weight_decay)

    x_test, t_test, y_test, true_ite = generate_data(args)
    true_ate = true_ite.mean()
    print("true ATE = {:0.3g}".format(true_ate.item()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Causal Effect Variational Autoencoder")
    parser.add_argument("--num-data", default=1000, type=int)
    parser.add_argument("--feature-dim", default=5, type=int)
    parser.add_argument("--latent-dim", default=20, type=int)
    parser.add_argument("--hidden-dim", default=200, type=int)
    parser.add_argument("--num-layers", default=3, type=int)
    parser.add_argument("-n", "--num-epochs", default=50, type=int)
    parser.add_argument("-b", "--batch-size", default=100, type=int)
    parser.add_argument("-lr", "--learning-rate", default=1e-3, type=float)
    parser.add_argument("-lrd", "--learning-rate-decay", default=0.1, type=float)
    parser.add_argument("--weight-decay", default=1e-4, type=float)
    parser.add_argument("--seed", default=1234567890, type=int)
    parser.add_argument("--cuda", action="store_true")
    args = parser.parse_args()
    main(args)
