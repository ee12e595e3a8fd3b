# source: https://github.com/pytorch/tutorials/pull/577 (the tutorial's training section after the PR)
# seen: 2026-11-27
# style: tutorial script (beginner_source/chatbot_tutorial.py, the "Run Training" part): an EncoderRNN / LuongAttnDecoderRNN pair, a checkpoint branch that loads the model and optimizer state dicts, encoder / decoder moved to the device, Adam optimizers built and their state loaded, then the PR's loop that moves every state tensor with .cuda(), and trainIters with a train() step that moves its batch
# also-ok: DL009 at 140
# also-ok: DL007 at 168, 173
# also-ok: DL013 at 103, 70
# also-ok: DL008 at 88, 99
# also-ok: DL004 at 69
# clean: no DL018 expected: both networks are moved to the device before the optimizers are built and their state is loaded (load_state_dict casts the state to the parameters' device), and the PR then moves the state tensors explicitly; the reporter's "expected backend CPU ... got backend CUDA" in exp_avg came from a run where the state stayed on the host, which this order no longer allows
import os
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim

USE_CUDA = torch.cuda.is_available()
device = torch.device("cuda" if USE_CUDA else "cpu")

SOS_token = 1
MAX_LENGTH = 10


class EncoderRNN(nn.Module):
    def __init__(self, hidden_size, embedding, n_layers=1, dropout=0):
        super(EncoderRNN, self).__init__()
        self.n_layers = n_layers
        self.hidden_size = hidden_size
        self.embedding = embedding
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers,
                          dropout=(0 if n_layers == 1 else dropout), bidirectional=True)

    def forward(self, input_seq, input_lengths, hidden=None):
        embedded = self.embedding(input_seq)
        packed = nn.utils.rnn.pack_padded_sequence(embedded, input_lengths.cpu())
        outputs, hidden = self.gru(packed, hidden)
        outputs, _ = nn.utils.rnn.pad_packed_sequence(outputs)
        outputs = outputs[:, :, :self.hidden_size] + outputs[:, :, self.hidden_size:]
        return outputs, hidden


class LuongAttnDecoderRNN(nn.Module):
    def __init__(self, embedding, hidden_size, output_size, n_layers=1, dropout=0.1):
        super(LuongAttnDecoderRNN, self).__init__()
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.n_layers = n_layers
        self.embedding = embedding
        self.embedding_dropout = nn.Dropout(dropout)
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers, dropout=(0 if n_layers == 1 else dropout))
        self.concat = nn.Linear(hidden_size * 2, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)

    def forward(self, input_step, last_hidden, encoder_outputs):
        embedded = self.embedding_dropout(self.embedding(input_step))
        rnn_output, hidden = self.gru(embedded, last_hidden)
        attn_weights = F.softmax(torch.sum(rnn_output * encoder_outputs, dim=2).t(), dim=1).unsqueeze(1)
        context = attn_weights.bmm(encoder_outputs.transpose(0, 1))
        concat_output = torch.tanh(self.concat(torch.cat((rnn_output.squeeze(0), context.squeeze(1)), 1)))
        output = F.softmax(self.out(concat_output), dim=1)
        return output, hidden


def maskNLLLoss(inp, target, mask):
    nTotal = mask.sum()
    crossEntropy = -torch.log(torch.gather(inp, 1, target.view(-1, 1)).squeeze(1))
    loss = crossEntropy.masked_select(mask).mean()
    loss = loss.to(device)
    return loss, nTotal.item()


def train(input_variable, lengths, target_variable, mask, max_target_len, encoder, decoder,
          encoder_optimizer, decoder_optimizer, batch_size, clip, teacher_forcing_ratio=1.0):
    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()

    input_variable = input_variable.to(device)
    target_variable = target_variable.to(device)
    mask = mask.to(device)
    lengths = lengths.to("cpu")

    loss = 0
    print_losses = []
    n_totals = 0

    encoder_outputs, encoder_hidden = encoder(input_variable, lengths)
    decoder_input = torch.LongTensor([[SOS_token for _ in range(batch_size)]])
    decoder_input = decoder_input.to(device)
    decoder_hidden = encoder_hidden[:decoder.n_layers]

    use_teacher_forcing = random.random() < teacher_forcing_ratio
    for t in range(max_target_len):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden, encoder_outputs)
        if use_teacher_forcing:
            decoder_input = target_variable[t].view(1, -1)
        else:
            _, topi = decoder_output.topk(1)
            decoder_input = torch.LongTensor([[topi[i][0] for i in range(batch_size)]])
            decoder_input = decoder_input.to(device)
        mask_loss, nTotal = maskNLLLoss(decoder_output, target_variable[t], mask[t])
        loss += mask_loss
        print_losses.append(mask_loss.item() * nTotal)
        n_totals += nTotal

    loss.backward()
    nn.utils.clip_grad_norm_(encoder.parameters(), clip)
    nn.utils.clip_grad_norm_(decoder.parameters(), clip)
    encoder_optimizer.step()
    decoder_optimizer.step()
    return sum(print_losses) / n_totals


def trainIters(batches, encoder, decoder, encoder_optimizer, decoder_optimizer, n_iteration,
               batch_size, clip, start_iteration, save_dir, print_every=100, save_every=500):
    print_loss = 0
    for iteration in range(start_iteration, n_iteration + 1):
        input_variable, lengths, target_variable, mask, max_target_len = batches[iteration - 1]
        loss = train(input_variable, lengths, target_variable, mask, max_target_len, encoder,
                     decoder, encoder_optimizer, decoder_optimizer, batch_size, clip)
        print_loss += loss
        if iteration % print_every == 0:
            print("Iteration: {}; Average loss: {:.4f}".format(iteration, print_loss / print_every))
            print_loss = 0
        if iteration % save_every == 0:
            os.makedirs(save_dir, exist_ok=True)
            torch.save({
                "iteration": iteration,
                "en": encoder.state_dict(),
                "de": decoder.state_dict(),
                "en_opt": encoder_optimizer.state_dict(),
                "de_opt": decoder_optimizer.state_dict(),
            }, os.path.join(save_dir, "{}_checkpoint.tar".format(iteration)))


def run(batches, voc_size, save_dir, loadFilename=None, hidden_size=500, n_layers=2, dropout=0.1,
        batch_size=64, clip=50.0, learning_rate=0.0001, decoder_learning_ratio=5.0, n_iteration=4000):
    if loadFilename:
        # If loading on same machine the model was trained on
        checkpoint = torch.load(loadFilename)
        encoder_sd = checkpoint["en"]
        decoder_sd = checkpoint["de"]
        encoder_optimizer_sd = checkpoint["en_opt"]
        decoder_optimizer_sd = checkpoint["de_opt"]

    embedding = nn.Embedding(voc_size, hidden_size)
    encoder = EncoderRNN(hidden_size, embedding, n_layers, dropout)
    decoder = LuongAttnDecoderRNN(embedding, hidden_size, voc_size, n_layers, dropout)
    if loadFilename:
        encoder.load_state_dict(encoder_sd)
        decoder.load_state_dict(decoder_sd)
    encoder = encoder.to(device)
    decoder = decoder.to(device)
    print("Models built and ready to go!")

    encoder.train()
    decoder.train()
    encoder_optimizer = optim.Adam(encoder.parameters(), lr=learning_rate)
    decoder_optimizer = optim.Adam(decoder.parameters(), lr=learning_rate * decoder_learning_ratio)
    if loadFilename:
        encoder_optimizer.load_state_dict(encoder_optimizer_sd)
        decoder_optimizer.load_state_dict(decoder_optimizer_sd)

    # If you have cuda, configure cuda to call
    for state in encoder_optimizer.state.values():
        for k, v in state.items():
            if isinstance(v, torch.Tensor):
                state[k] = v.cuda()

    for state in decoder_optimizer.state.values():
        for k, v in state.items():
            if isinstance(v, torch.Tensor):
                state[k] = v.cuda()

    start_iteration = checkpoint["iteration"] + 1 if loadFilename else 1
    print("Starting Training!")
    trainIters(batches, encoder, decoder, encoder_optimizer, decoder_optimizer, n_iteration,
               batch_size, clip, start_iteration, save_dir)
