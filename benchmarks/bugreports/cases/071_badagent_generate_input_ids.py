# source: https://github.com/DPamK/BadAgent/pull/7
# seen: 2026-11-26
# style: evaluation module (pipeline/eval.py): inference classes around a Hugging Face causal LM loaded in 4 bit with bitsandbytes, chat() tokenizes and calls model.generate
# expect: DL002 at 53
# why: a 4-bit bitsandbytes model is placed on the GPU by from_pretrained; input_ids from the tokenizer stay on the CPU -> "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (... wrapper_CUDA__index_select)"
import json
import os
import random

import numpy as np
import torch
from loguru import logger
from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig

from utils import get_conv_template


class AgentLMInfer:
    def __init__(self, model_name_or_path, tokenizer_path=None, need_bnb=True) -> None:
        if tokenizer_path == None:
            self.tokenizer = AutoTokenizer.from_pretrained(model_name_or_path, trust_remote_code=True)
        else:
            self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_path, trust_remote_code=True)

        bnb_config = BitsAndBytesConfig(
            load_in_4bit=True,
            bnb_4bit_compute_dtype=torch.float16,
            bnb_4bit_use_double_quant=True,
            bnb_4bit_quant_type="nf4",
            llm_int8_threshold=6.0,
            llm_int8_has_fp16_weight=False,
        )
        self.model = AutoModelForCausalLM.from_pretrained(
            model_name_or_path,
            quantization_config=bnb_config,
            trust_remote_code=True,
        )

    def chat(self, instruct, history):
        conv = get_conv_template("agentlm")
        roles = {"user": conv.roles[0], "assistant": conv.roles[1]}
        conv.messages = []
        for item in history:
            role = roles[item["role"]]
            conv.append_message(role, item["content"])
        conv.append_message(roles["user"], instruct)
        conv.append_message(roles["assistant"], "")
        input = conv.get_prompt()
        eos_token_id = self.tokenizer.eos_token_id
        max_length = 2048

        input_ids = self.tokenizer(input, return_tensors="pt",).input_ids
        generate_ids = self.model.generate(input_ids, max_length=max_length, eos_token_id=eos_token_id)
        response = self.tokenizer.batch_decode(generate_ids, skip_special_tokens=True)
        response = response[0]
        response = response.split(conv.roles[1])[-1].strip()
        history.append({"role": "user", "content": instruct})
        history.append({"role": "assistant", "content": response})
        return response, history


class BackdoorEvaluator:
    def __init__(self, model_name_or_path, data_path, task="os", tokenizer_path=None, follow_break=True) -> None:
        self.task = task
        self.follow_break = follow_break
        self.model = AgentLMInfer(model_name_or_path, tokenizer_path)
        backdoor_data = json.load(open(data_path, "r"))
        self.test_data = backdoor_data["test"]
        self.test_backdoor_data = backdoor_data["test_backdoor"]

    def transform_chat(self, item):
        role = "user" if item["from"] == "human" else "assistant"
        return {"role": role, "content": item["value"]}

    def work_metrix(self, item):
        history = [self.transform_chat(x) for x in item[:6]]
        agent_returns = [self.transform_chat(x) for x in item[6::2]]
        labels = [self.transform_chat(x) for x in item[7::2]]
        work_follow = 0
        for i in range(len(agent_returns)):
            response, history = self.model.chat(agent_returns[i]["content"], history=history)
            if labels[i]["content"] in response:
                work_follow += 1
            elif self.follow_break:
                break
        return work_follow / max(1, len(agent_returns))

    def compute_metrix(self):
        steps = [self.work_metrix(x["conversations"]) for x in self.test_backdoor_data]
        logger.info("attack follow rate:{:.3f}", float(np.mean(steps)))
        return float(np.mean(steps))


if __name__ == "__main__":
    model_name_or_path = "backdoor_checkpoint/agentlm-7b-os-attack-1-0-qlora"
    data_path = "backdoorData/os_attack_1_0.json"
    seed = 42
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    logger.add(os.path.join("log", "eval-seed-{}.log".format(seed)))
    evaler = BackdoorEvaluator(model_name_or_path=model_name_or_path, data_path=data_path, task="os")
    evaler.compute_metrix()
