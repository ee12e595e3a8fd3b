"""Optimizers and learning-rate schedules, of torch and of other libraries."""

from __future__ import annotations

import re

LIBRARY = "torch.optim"

# Optimizers and schedules by last name part, from any library (transformers' AdamW and
# get_linear_schedule_with_warmup, timm's create_optimizer, bitsandbytes' Adam8bit): they hold
# the model's parameters but are no tensor themselves.
OPTIMIZER = re.compile(r"^(Adam\w*|SGD|RMSprop|Adagrad|Adadelta|Adafactor|Lion|LAMB|Lamb|LARS|Adam8bit|PagedAdamW\w*)$|"
                       r"optimizer|_schedule|^get_scheduler$|LRScheduler$|LambdaLR$")
