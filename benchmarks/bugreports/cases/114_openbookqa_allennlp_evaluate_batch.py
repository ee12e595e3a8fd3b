# source: https://github.com/allenai/OpenBookQA/pull/5
# seen: 2026-11-26
# style: AllenNLP subcommand (obqa/commands/evaluate_predictions_qa_mc.py): a Subcommand class adding argparse arguments, evaluate() over a DataIterator's batches writing per-question predictions to a jsonl file, evaluate_from_args() loading the archive on --cuda-device
# expect: DL002 at 57
# why: load_archive(..., cuda_device=args.cuda_device) puts the model on the GPU, but the batches of iterator(instances, num_epochs=1, shuffle=False) are built on the CPU and handed to model(**batch) unmoved; the PR adds batch = move_to_device(batch, cuda_device)
import argparse
import json
import logging
from contextlib import ExitStack
from typing import Any, Dict

import torch
from allennlp.commands.subcommand import Subcommand
from allennlp.common.checks import check_for_gpu
from allennlp.common.tqdm import Tqdm
from allennlp.common.util import prepare_environment
from allennlp.data import Instance
from allennlp.data.dataset_readers.dataset_reader import DatasetReader
from allennlp.data.iterators import DataIterator
from allennlp.models.archival import load_archive
from allennlp.models.model import Model

logger = logging.getLogger(__name__)


class EvaluatePredictionsQA_MC(Subcommand):
    def add_subparser(self, name: str, parser: argparse._SubParsersAction) -> argparse.ArgumentParser:
        description = '''Evaluate the specified model + dataset and write per-question predictions'''
        subparser = parser.add_parser(name, description=description, help='Evaluate a QA model.')
        subparser.add_argument('--archive_file', type=str, help='path to an archived trained model')
        subparser.add_argument('--evaluation_data_file', type=str, help='path to the file containing the evaluation data')
        subparser.add_argument('--output_file', type=str, help='path to output file to save the predictions')
        subparser.add_argument('--cuda-device', type=int, default=-1, help='id of GPU to use (if any)')
        subparser.add_argument('-o', '--overrides', type=str, default="", help='a JSON structure used to override the experiment configuration')
        subparser.set_defaults(func=evaluate_from_args)
        return subparser


def evaluate(model: Model,
             instances,
             data_iterator: DataIterator,
             output_file: str = None,
             eval_type: str = None) -> Dict[str, Any]:
    model.eval()

    iterator = data_iterator(instances, num_epochs=1, shuffle=False)
    logger.info("Iterating over dataset")
    generator_tqdm = Tqdm.tqdm(iterator, total=data_iterator.get_num_batches(instances))

    with ExitStack() as stack:
        if output_file is None:
            file_handle = None
        else:
            file_handle = stack.enter_context(open(output_file, 'w'))

        for batch in generator_tqdm:
            model_output = model(**batch)
            metrics = model.get_metrics()
            if file_handle:
                _ids = batch["metadata"]
                for ex_id in range(len(_ids)):
                    res = {"id": _ids[ex_id]["id"],
                           "label_probs": model_output["label_probs"][ex_id].tolist(),
                           "label_ids": model_output["label_ids"][ex_id]}
                    file_handle.write(json.dumps(res) + "\n")

            description = ', '.join(["%s: %.2f" % (name, value) for name, value in metrics.items()]) + " ||"
            generator_tqdm.set_description(description, refresh=False)

    return model.get_metrics(reset=True)


def evaluate_from_args(args: argparse.Namespace) -> Dict[str, Any]:
    # Disable some of the more verbose logging statements
    logging.getLogger('allennlp.common.params').disabled = True
    logging.getLogger('allennlp.nn.initializers').disabled = True
    logging.getLogger('allennlp.modules.token_embedders.embedding').setLevel(logging.INFO)

    check_for_gpu(args.cuda_device)
    # Load from archive
    archive = load_archive(args.archive_file, cuda_device=args.cuda_device, overrides=args.overrides)
    config = archive.config
    prepare_environment(config)
    model = archive.model
    model.eval()

    # Load the evaluation data
    validation_dataset_reader_params = config.pop('validation_dataset_reader', None)
    if validation_dataset_reader_params is not None:
        dataset_reader = DatasetReader.from_params(validation_dataset_reader_params)
    else:
        dataset_reader = DatasetReader.from_params(config.pop('dataset_reader'))
    evaluation_data_path = args.evaluation_data_file
    logger.info("Reading evaluation data from %s", evaluation_data_path)
    instances = dataset_reader.read(evaluation_data_path)

    iterator = DataIterator.from_params(config.pop("iterator"))
    iterator.index_with(model.vocab)

    metrics = evaluate(model, instances, iterator, args.output_file)

    logger.info("Finished evaluating.")
    logger.info("Metrics:")
    for key, metric in metrics.items():
        logger.info("%s: %s", key, metric)

    return metrics
