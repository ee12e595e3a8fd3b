# source: https://github.com/data-prep-kit/data-prep-kit/pull/1056
# seen: 2026-11-26
# style: data-prep-kit table transform (transform.py): a module-level device, an AbstractTableTransform subclass that loads a Hugging Face tokenizer and classifier in __init__, scores the text column of a pyarrow table in batches, a TransformConfiguration with argparse parameters
# expect: DL001 at 43
# why: the tokenized inputs are moved to the module's device (cuda when available) but the classifier from from_pretrained stays on the CPU -> "Expected all tensors to be on the same device" on a GPU node (the PR adds .to(device) to the model)
import argparse
from typing import Any

import pyarrow as pa
import torch
from data_processing.transform import AbstractTableTransform, TransformConfiguration
from data_processing.utils import CLIArgumentProvider, get_logger
from transformers import AutoModelForSequenceClassification, AutoTokenizer

logger = get_logger(__name__)

short_name = "doc_quality_model"
cli_prefix = f"{short_name}_"
model_name_key = "model_name"
content_column_key = "content_column"
batch_size_key = "batch_size"
output_column_key = "output_column"

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DocQualityModelTransform(AbstractTableTransform):
    """Scores every document of a table with a sequence classifier."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.model_name = config.get(model_name_key, "ibm-granite/granite-guardian-hap-38m")
        self.content_column = config.get(content_column_key, "contents")
        self.output_column = config.get(output_column_key, "quality_score")
        self.batch_size = config.get(batch_size_key, 128)
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_name)
        self.model = AutoModelForSequenceClassification.from_pretrained(self.model_name)
        self.model.eval()

    def _score(self, texts: list[str]) -> list[float]:
        inputs = self.tokenizer(texts, padding=True, truncation=True, max_length=512, return_tensors="pt").to(device)
        with torch.no_grad():
            logits = self.model(**inputs).logits
        probs = torch.softmax(logits, dim=1)
        return probs[:, 1].detach().cpu().tolist()

    def transform(self, table: pa.Table, file_name: str = None) -> tuple[list[pa.Table], dict[str, Any]]:
        logger.debug(f"Transforming one table with {len(table)} rows")
        texts = table.column(self.content_column).to_pylist()
        scores = []
        for start in range(0, len(texts), self.batch_size):
            scores.extend(self._score(texts[start:start + self.batch_size]))
        table = table.append_column(self.output_column, pa.array(scores))
        metadata = {"nrows": len(table), "scored": len(scores)}
        return [table], metadata


class DocQualityModelTransformConfiguration(TransformConfiguration):
    def __init__(self):
        super().__init__(name=short_name, transform_class=DocQualityModelTransform)

    def add_input_params(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(f"--{cli_prefix}{model_name_key}", type=str, default="ibm-granite/granite-guardian-hap-38m",
                            help="Hugging Face model used to score documents")
        parser.add_argument(f"--{cli_prefix}{content_column_key}", type=str, default="contents",
                            help="column holding the document text")
        parser.add_argument(f"--{cli_prefix}{batch_size_key}", type=int, default=128, help="documents per forward pass")
        parser.add_argument(f"--{cli_prefix}{output_column_key}", type=str, default="quality_score",
                            help="column to write the score to")

    def apply_input_params(self, args: argparse.Namespace) -> bool:
        captured = CLIArgumentProvider.capture_parameters(args, cli_prefix, False)
        self.params = self.params | captured
        logger.info(f"{short_name} parameters are : {self.params}")
        return True
