# source: https://github.com/MinishLab/model2vec/pull/86
# seen: 2026-11-27
# style: library module (distill/inference.py style) with a small CLI: a no-grad helper that moves a tokenizer batch to model.device and returns the masked mean of last_hidden_state, a function that runs it over the vocabulary in batches and collects NumPy rows, distill() that loads the transformer, moves it to the requested device and saves a static embedding table, and argparse for model name / device / output
# expect: DL003 at 44
# why: distill() moves the model to the device (cuda when asked or available) and the helper moves the batch there too, so the pooled result is a cuda tensor; create_output_embeddings calls .numpy() on it -> "can't convert cuda:0 device type tensor to numpy"; the PR ("We didn't move the tensor to cpu before trying to dump it") adds .cpu() before the NumPy conversion
import argparse
import logging
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm
from transformers import AutoModel, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerFast

logger = logging.getLogger(__name__)

_DEFAULT_BATCH_SIZE = 1024


@torch.no_grad()
def _encode_mean_using_model(model: PreTrainedModel, encodings: dict[str, torch.Tensor]) -> torch.Tensor:
    """Mean-pool the last hidden state over the attention mask."""
    encodings = {k: v.to(model.device) for k, v in encodings.items()}
    encoded = model(**encodings)
    out: torch.Tensor = encoded.last_hidden_state
    mask = encodings["attention_mask"]
    result = (out * mask[..., None]).sum(1) / mask.sum(1)[:, None]
    return result


def create_output_embeddings_from_model_name(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerFast
) -> tuple[list[str], np.ndarray]:
    """Embed every token of the vocabulary on its own, between the special tokens."""
    ids = torch.arange(tokenizer.vocab_size)
    bos = torch.full([len(ids)], fill_value=tokenizer.cls_token_id)
    eos = torch.full([len(ids)], fill_value=tokenizer.sep_token_id)
    stacked = torch.stack([bos, ids, eos], dim=1)

    intermediate_weights: list[np.ndarray] = []
    for batch_idx in tqdm(range(0, len(stacked), _DEFAULT_BATCH_SIZE)):
        batch = stacked[batch_idx : batch_idx + _DEFAULT_BATCH_SIZE]
        out = _encode_mean_using_model(model, {"input_ids": batch, "attention_mask": torch.ones_like(batch)})
        intermediate_weights.append(out.numpy())

    out_weights = np.concatenate(intermediate_weights)
    tokens = tokenizer.convert_ids_to_tokens(ids.tolist())
    return tokens, out_weights


def distill(model_name: str, device: str, pca_dims: int | None = 256) -> tuple[list[str], np.ndarray]:
    model: PreTrainedModel = AutoModel.from_pretrained(model_name)
    tokenizer: PreTrainedTokenizerFast = AutoTokenizer.from_pretrained(model_name)
    model = model.to(device)
    model.eval()

    tokens, embeddings = create_output_embeddings_from_model_name(model, tokenizer)
    if pca_dims is not None and pca_dims < embeddings.shape[1]:
        from sklearn.decomposition import PCA

        embeddings = PCA(n_components=pca_dims).fit_transform(embeddings)
    logger.info("Distilled %d tokens into %s", len(tokens), embeddings.shape)
    return tokens, embeddings


def main() -> None:
    parser = argparse.ArgumentParser(description="Distill a static embedding table from a sentence transformer.")
    parser.add_argument("--model-name", default="BAAI/bge-base-en-v1.5")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--save-path", type=Path, default=Path("m2v_model"))
    args = parser.parse_args()

    tokens, embeddings = distill(args.model_name, args.device, args.pca_dims)
    args.save_path.mkdir(parents=True, exist_ok=True)
    np.save(args.save_path / "embeddings.npy", embeddings)
    (args.save_path / "tokens.txt").write_text("\n".join(tokens), encoding="utf-8")


if __name__ == "__main__":
    main()
