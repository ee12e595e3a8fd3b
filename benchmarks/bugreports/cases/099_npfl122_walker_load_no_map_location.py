# source: https://github.com/ufal/npfl122/pull/103
# seen: 2026-11-26
# style: RL course assignment (08/walker.torch.py): argparse, a Network class wrapping actor / critic torch modules with a self.device picked from torch.cuda.is_available(), save/load methods, a --recodex evaluation path that loads the trained model
# expect: DL009 at 45
# why: the model trained on a GPU is saved with torch.save(state_dict); load() calls torch.load(path) without map_location, so on the CPU-only evaluation machine it raises "Attempting to deserialize object on a CUDA device"
import argparse
import collections
import os

import gymnasium as gym
import numpy as np
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--env", default="BipedalWalker-v3", type=str, help="Environment.")
parser.add_argument("--recodex", default=False, action="store_true", help="Running in ReCodEx")
parser.add_argument("--seed", default=None, type=int, help="Random seed.")
parser.add_argument("--batch_size", default=256, type=int, help="Batch size.")
parser.add_argument("--gamma", default=0.99, type=float, help="Discounting factor.")
parser.add_argument("--hidden_layer_size", default=256, type=int, help="Size of hidden layer.")
parser.add_argument("--learning_rate", default=3e-4, type=float, help="Learning rate.")
parser.add_argument("--model_path", default="walker.model", type=str, help="Model path")
parser.add_argument("--replay_buffer_size", default=1_000_000, type=int, help="Replay buffer size")
parser.add_argument("--target_tau", default=0.005, type=float, help="Target network update weight.")


class Network:
    def __init__(self, env, args):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        obs, act = env.observation_space.shape[0], env.action_space.shape[0]
        self._actor = torch.nn.Sequential(
            torch.nn.Linear(obs, args.hidden_layer_size), torch.nn.ReLU(),
            torch.nn.Linear(args.hidden_layer_size, act), torch.nn.Tanh()).to(self.device)
        self._critic = torch.nn.Sequential(
            torch.nn.Linear(obs + act, args.hidden_layer_size), torch.nn.ReLU(),
            torch.nn.Linear(args.hidden_layer_size, 1)).to(self.device)
        self._actor_optimizer = torch.optim.Adam(self._actor.parameters(), lr=args.learning_rate)
        self._critic_optimizer = torch.optim.Adam(self._critic.parameters(), lr=args.learning_rate)
        self._gamma = args.gamma

    def save_actor(self, path):
        torch.save(self._actor.state_dict(), path)

    def load_actor(self, path):
        self._actor.load_state_dict(torch.load(path))

    def train(self, states, actions, returns):
        states = torch.as_tensor(states, device=self.device)
        actions = torch.as_tensor(actions, device=self.device)
        returns = torch.as_tensor(returns, device=self.device)
        critic_loss = torch.nn.functional.mse_loss(self._critic(torch.cat([states, actions], -1)).squeeze(-1), returns)
        self._critic_optimizer.zero_grad()
        critic_loss.backward()
        self._critic_optimizer.step()
        actor_loss = -self._critic(torch.cat([states, self._actor(states)], -1)).mean()
        self._actor_optimizer.zero_grad()
        actor_loss.backward()
        self._actor_optimizer.step()

    @torch.no_grad()
    def predict_actions(self, states):
        states = torch.as_tensor(np.asarray(states, dtype=np.float32), device=self.device)
        return self._actor(states).cpu().numpy()

    @torch.no_grad()
    def predict_values(self, states, actions):
        x = torch.as_tensor(np.concatenate([states, actions], -1), dtype=torch.float32, device=self.device)
        return self._critic(x).squeeze(-1).cpu().numpy()


def main(env, args):
    if args.seed is not None:
        np.random.seed(args.seed)
        torch.manual_seed(args.seed)
    network = Network(env, args)

    if args.recodex:
        network.load_actor(args.model_path)
        while True:
            state, _ = env.reset(), False
            state, done = state[0], False
            while not done:
                action = network.predict_actions([state])[0]
                state, reward, terminated, truncated, _ = env.step(action)
                done = terminated or truncated

    Transition = collections.namedtuple("Transition", ["state", "action", "reward", "done", "next_state"])
    replay_buffer = collections.deque(maxlen=args.replay_buffer_size)
    for episode in range(1000):
        state, done = env.reset()[0], False
        while not done:
            action = np.clip(network.predict_actions([state])[0] + np.random.normal(0, 0.1, env.action_space.shape),
                             env.action_space.low, env.action_space.high)
            next_state, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            replay_buffer.append(Transition(state, action, reward, done, next_state))
            state = next_state
            if len(replay_buffer) >= 4 * args.batch_size:
                batch = np.random.choice(len(replay_buffer), size=args.batch_size, replace=False)
                states, actions, rewards, dones, next_states = map(np.array, zip(*[replay_buffer[i] for i in batch]))
                next_actions = network.predict_actions(next_states)
                returns = rewards + args.gamma * (1 - dones) * network.predict_values(next_states, next_actions)
                network.train(states.astype(np.float32), actions.astype(np.float32), returns.astype(np.float32))
    network.save_actor(args.model_path)


if __name__ == "__main__":
    args = parser.parse_args([] if "__file__" not in globals() else None)
    env = gym.make(args.env)
    main(env, args)
