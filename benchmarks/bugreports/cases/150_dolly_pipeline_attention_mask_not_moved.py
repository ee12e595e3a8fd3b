# source: https://github.com/databrickslabs/dolly/pull/180
# seen: 2026-11-27
# style: library module (training/generate.py style): a prompt template, an InstructionTextGenerationPipeline subclass of the Hugging Face Pipeline with preprocess / _forward / postprocess, load_model_tokenizer_for_generate() and generate_response() helpers that build the model with from_pretrained and run the pipeline
# expect: DL002 at 72, 74
# also-ok: DL007 at 115
# why: _forward moves input_ids to self.model.device but hands generate() the tokenizer's attention_mask as it came, on the CPU -> device mismatch inside generate when the model sits on cuda (the reporter moved it there); the PR moves the mask to the model's device as well
import logging
import re

import numpy as np
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, Pipeline, PreTrainedModel, PreTrainedTokenizer

logger = logging.getLogger(__name__)

INSTRUCTION_KEY = "### Instruction:"
RESPONSE_KEY = "### Response:"
END_KEY = "### End"
INTRO_BLURB = "Below is an instruction that describes a task. Write a response that appropriately completes the request."
PROMPT_FOR_GENERATION_FORMAT = """{intro}

{instruction_key}
{instruction}

{response_key}
""".format(intro=INTRO_BLURB, instruction_key=INSTRUCTION_KEY, instruction="{instruction}", response_key=RESPONSE_KEY)


def get_special_token_id(tokenizer, key):
    token_ids = tokenizer.encode(key)
    if len(token_ids) > 1:
        raise ValueError(f"Expected only a single token for '{key}' but found {token_ids}")
    return token_ids[0]


class InstructionTextGenerationPipeline(Pipeline):
    def __init__(self, *args, do_sample=True, max_new_tokens=256, top_p=0.92, top_k=0, **kwargs):
        super().__init__(*args, do_sample=do_sample, max_new_tokens=max_new_tokens, top_p=top_p, top_k=top_k, **kwargs)

    def _sanitize_parameters(self, return_full_text=None, **generate_kwargs):
        preprocess_params = {}
        tokenizer_response_key = next((token for token in self.tokenizer.additional_special_tokens if token.startswith(RESPONSE_KEY)), None)
        response_key_token_id = None
        end_key_token_id = None
        if tokenizer_response_key:
            response_key_token_id = get_special_token_id(self.tokenizer, tokenizer_response_key)
            end_key_token_id = get_special_token_id(self.tokenizer, END_KEY)
            generate_kwargs["eos_token_id"] = end_key_token_id
        forward_params = generate_kwargs
        postprocess_params = {"response_key_token_id": response_key_token_id, "end_key_token_id": end_key_token_id}
        if return_full_text is not None:
            postprocess_params["return_full_text"] = return_full_text
        return preprocess_params, forward_params, postprocess_params

    def preprocess(self, instruction_text, **generate_kwargs):
        prompt_text = PROMPT_FOR_GENERATION_FORMAT.format(instruction=instruction_text)
        inputs = self.tokenizer(prompt_text, return_tensors="pt")
        inputs["prompt_text"] = prompt_text
        inputs["instruction_text"] = instruction_text
        return inputs

    def _forward(self, model_inputs, **generate_kwargs):
        input_ids = model_inputs["input_ids"]
        attention_mask = model_inputs.get("attention_mask", None)
        if input_ids.shape[1] == 0:
            input_ids = None
            attention_mask = None
            in_b = 1
        else:
            in_b = input_ids.shape[0]

        generated_sequence = self.model.generate(
            input_ids=input_ids.to(self.model.device),
            attention_mask=attention_mask,
            pad_token_id=self.tokenizer.pad_token_id,
            **generate_kwargs,
        )

        out_b = generated_sequence.shape[0]
        generated_sequence = generated_sequence.reshape(in_b, out_b // in_b, *generated_sequence.shape[1:])
        instruction_text = model_inputs.pop("instruction_text")
        return {"generated_sequence": generated_sequence, "input_ids": input_ids, "instruction_text": instruction_text}

    def postprocess(self, model_outputs, response_key_token_id, end_key_token_id, return_full_text=False):
        generated_sequence = model_outputs["generated_sequence"][0]
        instruction_text = model_outputs["instruction_text"]
        generated_sequence = generated_sequence.numpy().tolist()
        records = []
        for sequence in generated_sequence:
            decoded = None
            if response_key_token_id and end_key_token_id:
                try:
                    response_pos = sequence.index(response_key_token_id)
                except ValueError:
                    response_pos = None
                if response_pos is not None:
                    try:
                        end_pos = sequence.index(end_key_token_id)
                    except ValueError:
                        end_pos = None
                    decoded = self.tokenizer.decode(sequence[response_pos + 1:end_pos]).strip()
            if not decoded:
                fully_decoded = self.tokenizer.decode(sequence)
                m = re.search(r"#+\s*Response:\s*(.+?)#+\s*End", fully_decoded, flags=re.DOTALL)
                decoded = m.group(1).strip() if m else fully_decoded
            if return_full_text:
                decoded = f"{instruction_text}\n{decoded}"
            records.append({"generated_text": decoded})
        return records


def load_model_tokenizer_for_generate(pretrained_model_name_or_path):
    tokenizer = AutoTokenizer.from_pretrained(pretrained_model_name_or_path, padding_side="left")
    model = AutoModelForCausalLM.from_pretrained(pretrained_model_name_or_path, torch_dtype=torch.bfloat16, trust_remote_code=True)
    model = model.to("cuda")
    return model, tokenizer


def generate_response(instruction, *, model, tokenizer, **kwargs):
    generation_pipeline = InstructionTextGenerationPipeline(model=model, tokenizer=tokenizer, **kwargs)
    return generation_pipeline(instruction)[0]["generated_text"]


if __name__ == "__main__":
    model, tokenizer = load_model_tokenizer_for_generate("databricks/dolly-v2-3b")
    print(generate_response("Explain the difference between a list and a tuple in Python.", model=model, tokenizer=tokenizer))
