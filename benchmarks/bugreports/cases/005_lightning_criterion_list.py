# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2984
# seen: 2026-11-26
# style: LightningModule, losses kept in a plain Python list
# expect: DL001 at 18, 21, 31
# why: CrossEntropyLoss modules (with weight buffers) kept in a plain list are not moved with the LightningModule
import torch
import pytorch_lightning as pl


class JJG_Transformer(pl.LightningModule):

    def __init__(self, alphanet_plus_2, letter_weights_per_position):
        super(JJG_Transformer, self).__init__()
        self.letter_weights_per_position = letter_weights_per_position
        self.embed = torch.nn.Embedding(alphanet_plus_2, 128)
        self.backbone = torch.nn.Conv2d(1, 128, 3, padding=1)
        self.head = torch.nn.Linear(128, 94)
        self.criterions = []
        for weight in self.letter_weights_per_position:
            weight = torch.ones((94))
            self.criterions.append( torch.nn.CrossEntropyLoss(weight=weight) )

    def forward(self, batch_im, batch_letter_transformer_input):
        feats = self.backbone(batch_im).mean(dim=(2, 3))
        letters = self.embed(batch_letter_transformer_input)
        return self.head(letters + feats[:, None, :])

    def validation_step(self, batch, batch_idx):
        batch_im, batch_true_value_NT, batch_letter_transformer_input = batch
        out_NTA = self(batch_im, batch_letter_transformer_input)
        loss0 = self.criterions[0](out_NTA[:,0,:], batch_true_value_NT[:,0])
        loss1 = self.criterions[1](out_NTA[:,1,:], batch_true_value_NT[:,1])
        loss = loss0 + loss1
        tensorboard_logs = {'val_loss': loss, 'val_loss0': loss0, 'val_loss1':loss1}
        return {'val_loss': loss, 'log': tensorboard_logs}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-4)
