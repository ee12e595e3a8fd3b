"""Hugging Face: transformers, diffusers, peft, sentence-transformers, accelerate, datasets.

`CALL_KINDS`: (pattern on the qualified name, kind) rows, first match wins, for the kinds that
`knowledge/__init__.py` documents. Classes are found at the top level or in their submodule
(`transformers.models.bert.BertModel`).
"""

from __future__ import annotations

LIBRARY = "huggingface"

CALL_ROOTS = ("transformers", "diffusers", "peft", "sentence_transformers")
CALL_KINDS = (
    # ---- transformers
    (r"transformers\.(pipelines\.)?pipeline", "text_pipeline"),
    (r"transformers\.(pipelines\.)?\w*Pipeline", "text_pipeline"),
    (r"transformers\.(\w+\.)*\w*(Tokenizer|TokenizerFast|Processor|FeatureExtractor|ImageProcessor)\w*\.from_pretrained",
     "encoder"),
    (r"transformers\.(\w+\.)*\w*Config\.from_pretrained", "other"),
    (r"transformers\.(\w+\.)*(DataCollator\w*|default_data_collator)", "collate"),
    (r"transformers\.(\w+\.)*\w*\.from_pretrained", "module"),  # AutoModel*, *For*, *Model
    # ---- diffusers
    (r"diffusers\.(\w+\.)*\w*(Pipeline|PipelineFor\w*)\.from_(pretrained|single_file|pipe)", "pipeline"),
    (r"diffusers\.(\w+\.)*\w*(Scheduler|Processor)\w*\.from_\w+", "other"),
    (r"diffusers\.(\w+\.)*\w*\.from_(pretrained|single_file)", "module"),  # UNet2DConditionModel, AutoencoderKL...
    # ---- peft
    # peft wraps the model it is given (which keeps its placement), or loads a fresh one
    (r"peft\.(get_peft_model|prepare_model_for_kbit_training|\w*\.from_pretrained)", "wrap"),
    # ---- sentence-transformers picks the accelerator itself when none is given
    (r"sentence_transformers\.SentenceTransformer", "module_placed"),
)

# Roots whose `from_pretrained` builds a model when the class is named like one (`is_model_hub_class`).
HUB_ROOTS = ("transformers", "diffusers", "peft")

# Keywords that place what the call builds (so it is not simply on the host).
# (8-bit / 4-bit quantized loading places the weights on the accelerator itself.)
PLACING_KEYWORDS = ("device", "device_map", "quantization_config", "load_in_8bit", "load_in_4bit")
# Keywords of a quantized load: accelerate then dispatches the model with hooks that move its
# inputs to the weights (and the outputs back), wherever the weights are.
QUANTIZING_KEYWORDS = ("quantization_config", "load_in_8bit", "load_in_4bit")

# Pipeline outputs: `output_type=` values that give tensors (on the pipeline's device).
TENSOR_OUTPUT_TYPES = {"pt"}

# Encoder methods that give Python strings / lists; those that take `return_tensors=` like a call.
ENCODER_TEXT_METHODS = {"decode", "batch_decode", "convert_ids_to_tokens", "convert_tokens_to_string", "tokenize"}
ENCODER_TENSOR_METHODS = {"__call__", "encode", "encode_plus", "batch_encode_plus", "pad", "apply_chat_template"}

# Attributes of a tokenizer's BatchEncoding that are not its tensors (the rest, `input_ids`,
# `attention_mask`..., read the same tensors as `enc["input_ids"]`).
ENCODING_NON_TENSOR_ATTRS = {"data", "encodings", "is_fast", "n_sequences"}

# Attributes of model outputs that are not tensors (`pipe(...).images` are PIL by default,
# `.text` / `.nsfw_content_detected` are Python values).
NON_TENSOR_OUTPUT_ATTRS = {"images", "text", "nsfw_content_detected", "audios", "frames", "videos"}

# Class names of the hub that are no models.
MODEL_HUB_SKIP = ("Tokenizer", "Processor", "Config", "FeatureExtractor", "Scheduler", "Dataset")


def is_model_hub_class(name: str) -> bool:
    return ("Model" in name or "For" in name or name.startswith("Auto")) and not any(s in name for s in MODEL_HUB_SKIP)


def is_model_base(last: str) -> bool:
    """A transformers / diffusers base class of models with weights (`BertPreTrainedModel`, `ModelMixin`)."""
    return last.endswith("PreTrainedModel") or last == "ModelMixin"


# The trainers that place the model and the batches themselves.
TRAINERS = ("transformers.Trainer", "transformers.Seq2SeqTrainer", "trl")

# Hugging Face `datasets.Dataset` / `DatasetDict` methods that set the format its items come out
# in: given `device=`, the tensors are made there (`ds.with_format("torch", device=device)`), so a
# DataLoader over it yields batches already placed. Method -> does it return the dataset (True)
# or set the format in place and return None (False).
DATASET_FORMAT_METHODS = {"with_format": True, "set_format": False}

