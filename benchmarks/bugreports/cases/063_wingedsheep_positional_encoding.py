# source: https://github.com/wingedsheep/transformer/issues/4
# seen: 2026-11-26
# style: single-file GPT-style language model (main.py): module classes, a trainer class, training on a toy corpus; model moved with .to(get_device())
# expect: DL015 at 41, 44
# why: the sinusoidal table is built with torch.from_numpy in __init__ and kept as a plain attribute, so model.to(device) leaves it on the CPU; forward adds it to CUDA embeddings -> "found at least two devices, cuda:0 and cpu"
# also-ok: DL011 at 41, 44
# also-ok: DL008 at 94
# also-ok: DL013 at 103
import random

import numpy as np
import torch


def get_device():
    return torch.device('cuda') if torch.cuda.is_available() else torch.device('cpu')


class TokenEmbedding(torch.nn.Module):
    def __init__(self, embedding_dimension, number_of_tokens):
        super().__init__()
        self.embedding_layer = torch.nn.Embedding(num_embeddings=number_of_tokens, embedding_dim=embedding_dimension)

    def forward(self, x):
        return self.embedding_layer(x)


class PositionalEncoding(torch.nn.Module):
    def __init__(self, embedding_dimension, max_sequence_length):
        super().__init__()
        self.embedding_dimension = embedding_dimension
        self.max_sequence_length = max_sequence_length
        self.positional_encoding = self.create_positional_encoding()

    def create_positional_encoding(self):
        table = np.zeros((self.max_sequence_length, self.embedding_dimension))
        for pos in range(self.max_sequence_length):
            for i in range(0, self.embedding_dimension, 2):
                table[pos, i] = np.sin(pos / (10000 ** ((2 * i) / self.embedding_dimension)))
                table[pos, i + 1] = np.cos(pos / (10000 ** ((2 * (i + 1)) / self.embedding_dimension)))
        return torch.from_numpy(table).float()

    def forward(self, x):
        return x + self.positional_encoding[:x.size(1), :]


class LanguageModel(torch.nn.Module):
    def __init__(self, number_of_tokens, max_sequence_length=512, embedding_dimension=512, number_of_layers=6,
                 number_of_heads=4, dropout_rate=0.1):
        super().__init__()
        self.token_embedding = TokenEmbedding(embedding_dimension, number_of_tokens)
        self.positional_encoding = PositionalEncoding(embedding_dimension, max_sequence_length)
        self.layer_normalization = torch.nn.LayerNorm(embedding_dimension)
        layer = torch.nn.TransformerEncoderLayer(embedding_dimension, number_of_heads, 4 * embedding_dimension,
                                                 dropout_rate, batch_first=True, norm_first=True)
        self.decoder = torch.nn.TransformerEncoder(layer, number_of_layers)
        self.lm_head = torch.nn.Linear(embedding_dimension, number_of_tokens)

    def forward(self, x, mask):
        token_embeddings = self.token_embedding(x)
        positional_encoding = self.positional_encoding(token_embeddings)
        normalized = self.layer_normalization(positional_encoding)
        causal = torch.nn.Transformer.generate_square_subsequent_mask(x.size(1)).to(x.device)
        decoder_outputs = self.decoder(normalized, mask=causal, src_key_padding_mask=mask == 0)
        return self.lm_head(decoder_outputs)


class AutoregressiveWrapper(torch.nn.Module):
    def __init__(self, gpt_model):
        super().__init__()
        self.model = gpt_model
        self.max_sequence_length = self.model.positional_encoding.max_sequence_length

    def forward(self, x, mask):
        inp, target = x[:, :-1], x[:, 1:]
        mask = mask[:, :-1]
        output = self.model(inp, mask)
        return output, target


class Trainer:
    def __init__(self, model, tokenizer, optimizer=None):
        self.model = model
        self.tokenizer = tokenizer
        self.optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=0.0001)
        self.loss_function = torch.nn.CrossEntropyLoss()

    def train(self, data, epochs, batch_size):
        loss_per_epoch = []
        for epoch in range(epochs):
            losses = []
            random.shuffle(data)
            for i in range(0, len(data), batch_size):
                sequence_tensor = torch.tensor(data[i: i + batch_size], dtype=torch.long).to(get_device())
                mask_tensor = torch.ones_like(sequence_tensor)
                mask_tensor[sequence_tensor == self.tokenizer.character_to_token('<pad>')] = 0
                model_output, target = self.model.forward(x=sequence_tensor, mask=mask_tensor)
                loss = self.loss_function(model_output.transpose(1, 2), target)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 0.5)
                self.optimizer.step()
                self.optimizer.zero_grad()
                losses.append(loss.item())
            epoch_loss = np.average(losses)
            loss_per_epoch.append(epoch_loss)
            print('Epoch:', epoch, 'Loss:', epoch_loss)
        return loss_per_epoch


class Tokenizer:
    def __init__(self):
        self.dictionary = {'<pad>': 0}
        for c in 'abcdefghijklmnopqrstuvwxyz .,':
            self.dictionary[c] = len(self.dictionary)

    def character_to_token(self, character):
        return self.dictionary[character]

    def size(self):
        return len(self.dictionary)

    def tokenize(self, text):
        return [self.dictionary[c] for c in text]


def create_training_sequences(max_sequence_length, tokenized_training_data):
    sequences = []
    for i in range(0, len(tokenized_training_data) - max_sequence_length - 1):
        sequences.append(tokenized_training_data[i: i + max_sequence_length + 1])
    return sequences


def train_language_model():
    embedding_dimension = 256
    max_sequence_length = 20
    number_of_tokens = Tokenizer().size()
    model = AutoregressiveWrapper(LanguageModel(
        embedding_dimension=embedding_dimension,
        number_of_tokens=number_of_tokens,
        number_of_heads=4,
        number_of_layers=3,
        dropout_rate=0.1,
        max_sequence_length=max_sequence_length,
    )).to(get_device())
    tokenizer = Tokenizer()
    training_data = '. '.join(['cats rule the world', 'dogs are the best', 'elephants have long trunks'])
    tokenized_training_data = tokenizer.tokenize(training_data)
    for _ in range(0, max_sequence_length):
        tokenized_training_data.insert(0, tokenizer.character_to_token('<pad>'))
    sequences = create_training_sequences(max_sequence_length, tokenized_training_data)
    trainer = Trainer(model, tokenizer)
    return trainer.train(sequences, epochs=100, batch_size=8)


if __name__ == '__main__':
    train_language_model()
