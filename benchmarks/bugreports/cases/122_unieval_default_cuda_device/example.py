# source: https://github.com/maszhongming/UniEval/issues/4
# seen: 2026-11-26
# style: two-file project: the user's example script (builds the summarization data with the package's convert_to_json, get_evaluator(task), evaluate) and metric/evaluator.py (evaluator classes and get_evaluator, every device parameter defaulting to 'cuda:0', the scorer moving its Hugging Face model there)
# expect: DL007 at metric/evaluator.py:22, metric/evaluator.py:108
# why: nothing checks torch.cuda.is_available(): get_evaluator's device defaults to 'cuda:0' and the scorer moves the model there, so on a Mac the call get_evaluator(task) raises "AssertionError: Torch not compiled with CUDA enabled" (the reporter asks for a cuda / mps check)
from metric.evaluator import get_evaluator
from utils import convert_to_json

task = 'summarization'

# a list of source documents
src_list = ['Peter and Elizabeth took a taxi to attend the night party in the city. While in the party, Elizabeth collapsed and was rushed to the hospital.']
# a list of human-annotated reference summaries
ref_list = ['Elizabeth was hospitalized after attending a party with Peter.']
# a list of model outputs to be evaluated
output_list = ['Peter and Elizabeth attend party city. Elizabeth rushed hospital.']

# prepare data for pre-trained evaluators
data = convert_to_json(output_list=output_list, src_list=src_list, ref_list=ref_list)
# initialize evaluator for a specific task
evaluator = get_evaluator(task)
# get multi-dimensional evaluation scores
eval_scores = evaluator.evaluate(data, print_result=True)
