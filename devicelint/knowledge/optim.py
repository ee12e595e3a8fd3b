"""Optimizers and learning-rate schedules, of torch and of other libraries."""

from __future__ import annotations

import re

LIBRARY = "torch.optim"

# Optimizers and schedules by last name part, from any library (transformers' AdamW and
# get_linear_schedule_with_warmup, timm's create_optimizer, bitsandbytes' Adam8bit): they hold
# the model's parameters but are no tensor themselves.
OPTIMIZER = re.compile(r"^(Adam\w*|SGD|RMSprop|Adagrad|Adadelta|Adafactor|Lion|LAMB|Lamb|LARS|Adam8bit|PagedAdamW\w*)$|"
                       r"optimizer|_schedule|^get_scheduler$|LRScheduler$|LambdaLR$")

# Optimizers that keep per-parameter state tensors (`exp_avg`, `momentum_buffer`...), which
# `load_state_dict` casts to where each parameter is at that moment (DL018). Not schedules.
STATEFUL_OPTIMIZER = re.compile(r"^(Adam\w*|SGD|RMSprop|Adagrad|Adadelta|Adafactor|Lion|LAMB|Lamb|LARS|Adam8bit|"
                                r"PagedAdamW\w*|NAdam|RAdam|Rprop|ASGD)$")
# ...and those whose state is empty unless this keyword is given (SGD's momentum defaults to 0)
STATE_ONLY_WITH = {"SGD": "momentum"}
# Functions that build an optimizer from a model they are given (timm's `create_optimizer`,
# mmcv's `build_optimizer`): which optimizer is configuration; taken as one with state
OPTIMIZER_FACTORY = re.compile(r"^(create_optimizer\w*|build_optimizer\w*|get_optimizer|make_optimizer)$")
