# Copyright (c) Microsoft Corporation.
# Licensed under the MIT License.

import os
import logging
import argparse
import torch
from configs.base_config import cfg, cfg_from_file, cfg_update
from utils.misc import set_logger
from runners.sparenet_runner import sparenetRunner


def get_args_from_command_line():
    parser = argparse.ArgumentParser(description="The argument parser of SpareNet runner")
    parser.add_argument("--gpu", dest="gpu_id", help="GPU device to use", default="0", type=str)
    parser.add_argument("--workdir", dest="output", help="where to save files", default=None, type=str)
    parser.add_argument("--model", dest="model_type", help="sparenet, atlasnet, msn, grnet", default="sparenet", type=str)
    parser.add_argument("--weights", dest="weights", help="Initialize network from the weights file", default=None)
    parser.add_argument("--test_mode", default="default", help="default, vis, render, kitti", type=str)
    parser.add_argument("--config", dest="config", help="config file", default="configs/sparenet.yaml", type=str)
    return parser.parse_args()


def main():
    args = get_args_from_command_line()
    cfg_from_file(args.config)
    cfg_update(args)
    os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu_id
    logger = set_logger(os.path.join(cfg.DIR.logs, "log.txt"))
    logger.info("save into dir: %s" % cfg.DIR.logs)

    model = sparenetRunner(cfg, logger)
    model.runner()


if __name__ == "__main__":
    logging.basicConfig(format="[%(levelname)s] %(asctime)s %(message)s", level=logging.DEBUG)
    torch.backends.cudnn.benchmark = True
    main()
