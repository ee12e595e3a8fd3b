"""The simulated CUDA device, in-process (fast): placement, errors, counting."""

import sys
import warnings

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from devicelint.runtime.harness import Recorder  # noqa: E402
from devicelint.runtime.sim import Simulator  # noqa: E402

SAME = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def test_mixing_devices_raises_pytorch_text():
    with Simulator():
        with pytest.raises(RuntimeError) as info:
            torch.ones(2).to("cuda") + torch.ones(2)
    assert str(info.value) == SAME


def test_in_place_mixing_raises():
    with Simulator():
        x = torch.zeros(3, device="cuda")
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            x.add_(torch.ones(3))


def test_device_reports_logical_device_and_moves_back():
    with Simulator():
        x = torch.ones(2).to(torch.device("cuda"))
        assert str(x.device) == "cuda:0" and x.is_cuda and x.get_device() == 0
        assert "device='cuda:0'" in repr(x)
        y = x.cpu()
        assert y.device == torch.device("cpu") and not y.is_cuda
        assert x.to(y).device.type == "cpu"  # .to(other) follows the other tensor
        assert torch.zeros(3, device=x.device).device.type == "cuda"
    assert x.device.type == "cpu"  # outside the simulation it is a plain CPU tensor


def test_module_parameters_and_buffers_follow_model_to():
    with Simulator():
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
        model.to("cuda")
        assert {p.device.type for p in model.parameters()} == {"cuda"}
        assert {b.device.type for b in model.buffers()} == {"cuda"}
        with pytest.raises(RuntimeError, match="same device"):
            model(torch.randn(2, 3))
        assert model(torch.randn(2, 3).cuda()).device.type == "cuda"


def test_unmoved_conv_raises_type_mismatch_text():
    with Simulator():
        conv = torch.nn.Conv2d(1, 2, 3)
        with pytest.raises(RuntimeError) as info:
            conv(torch.randn(1, 1, 5, 5).cuda())
    assert "Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same" in str(
        info.value
    )


def test_cpu_scalars_and_cpu_indices_mix_with_cuda():
    with Simulator():
        x = torch.arange(6.0, device="cuda")
        assert (x * torch.tensor(2.0)).device.type == "cuda"
        assert x[torch.tensor([0, 2])].device.type == "cuda"
        x[torch.tensor([1])] = 5.0
        with pytest.raises(RuntimeError, match="same device"):
            torch.tensor([0, 2], device="cuda") + torch.ones(2)


def test_numpy_on_cuda_raises_type_error():
    message = "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
    with Simulator():
        x = torch.ones(2, device="cuda")
        with pytest.raises(TypeError) as info:
            x.numpy()
        assert str(info.value) == message
        with pytest.raises(TypeError, match="can't convert cuda:0"):
            np.asarray(x)
        assert x.cpu().numpy().tolist() == [1.0, 1.0]


def test_cuda_queries_are_patched_only_inside():
    real = torch.cuda.is_available()
    with Simulator():
        assert torch.cuda.is_available() and torch.cuda.device_count() == 1
        assert "Simulated" in torch.cuda.get_device_name(0)
        torch.cuda.synchronize()
        torch.cuda.manual_seed_all(0)
    assert torch.cuda.is_available() == real


def test_as_tensor_to_cuda_does_not_retag_the_source():
    with Simulator():
        src = torch.ones(3)
        moved = torch.as_tensor(src, device="cuda")
        assert moved.device.type == "cuda" and src.device.type == "cpu"


def test_backward_and_optimizer_step_stay_on_cuda():
    with Simulator():
        model = torch.nn.Linear(4, 2).cuda()
        opt = torch.optim.Adam(model.parameters())
        for _ in range(2):
            loss = model(torch.randn(3, 4, device="cuda")).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        assert model.weight.grad.device.type == "cuda"
        assert opt.state[model.weight]["exp_avg"].device.type == "cuda"
        assert loss.item() >= 0


def test_amp_runs_and_deprecated_amp_still_warns():
    with Simulator():
        model = torch.nn.Linear(4, 1).to("cuda")
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cuda")
        with torch.amp.autocast("cuda"):
            loss = model(torch.randn(2, 4).cuda()).sum()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with torch.cuda.amp.autocast():
                pass
    assert any(
        w.category is FutureWarning and "`torch.cuda.amp.autocast(args...)` is deprecated" in str(w.message)
        for w in caught
    )


def test_copies_and_syncs_are_counted_per_line():
    rec = Recorder(__file__)
    with Simulator(rec):
        w = torch.ones(3)
        here = sys._getframe().f_lineno
        x = w.to("cuda")  # here + 1: one h2d
        y = x.to("cuda")  # here + 2: already there, no copy
        x.sum().item()  # here + 3: one sync
        z = (x + y).cpu()  # here + 4: one d2h (a sync)
        buf = torch.empty(3, device="cuda")
        buf.copy_(z)  # here + 6: copy_ across devices is an h2d
    assert dict(rec.copies["h2d"]) == {here + 1: 1, here + 6: 1}
    assert dict(rec.copies["d2h"]) == {here + 4: 1}
    assert dict(rec.syncs) == {here + 3: 1, here + 4: 1}


def test_recurrent_models_move_without_touching_cudnn(monkeypatch):
    # On a CUDA build of torch without a GPU, asking cuDNN whether it accepts a tensor
    # initialises the CUDA runtime and fails ("Found no NVIDIA driver"): emulate that
    # build here, then move and run an LSTM tagger the way a training script does.
    import torch.backends.cudnn as cudnn

    def no_driver():
        raise RuntimeError("Found no NVIDIA driver on your system.")

    monkeypatch.setattr(torch._C, "_has_cudnn", True)
    monkeypatch.setattr(cudnn, "_init", no_driver)

    class Tagger(torch.nn.Module):
        def __init__(self, vocab=50, dim=16, tags=5):
            super().__init__()
            self.embed = torch.nn.Embedding(vocab, dim)
            self.lstm = torch.nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
            self.head = torch.nn.Linear(2 * dim, tags)

        def forward(self, tokens):
            out, _ = self.lstm(self.embed(tokens))
            return self.head(out)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Simulator():
            model = Tagger().to("cuda")
            tokens = torch.randint(0, 50, (4, 7)).to("cuda")
            scores = model(tokens)
            assert scores.device.type == "cuda" and scores.shape == (4, 7, 5)
            scores.sum().backward()
    assert [str(w.message) for w in caught] == []


def test_the_simulator_fails_exactly_the_mixed_device_operations_real_cuda_fails():
    """benchmarks/cross_device_ops_h200.json: what real CUDA answered for each probe."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "benchmarks"))
    try:
        import cross_device_ops
    finally:
        sys.path.remove(str(root / "benchmarks"))
    real = json.loads((root / "benchmarks" / "cross_device_ops_h200.json").read_text())
    assert real["simulated"] is False and "NVIDIA" in real["device"]
    assert set(real["outcomes"]) == set(cross_device_ops.PROBES)
    simulated = cross_device_ops.outcomes(simulate=True)
    wrong = {name: (real["outcomes"][name], simulated[name]) for name in real["outcomes"]
             if (real["outcomes"][name] == "ok") != (simulated[name] == "ok")}
    assert wrong == {}


GENERATOR = "Expected a 'cuda' device type for generator but found 'cpu'"


def test_default_device_factories_are_simulated_on_the_device():
    """`torch.set_default_device("cuda")` / `with torch.device("cuda"):`: factories without
    `device=` land on the (logical) device, not on a CUDA the CPU build lacks."""
    with Simulator():
        with torch.device("cuda"):
            assert torch.randn(3).is_cuda
        torch.set_default_device("cuda")
        try:
            assert torch.zeros(2).is_cuda
        finally:
            torch.set_default_device(None)
        assert not torch.ones(2).is_cuda


def test_a_host_generator_under_a_device_default_raises_cudas_text():
    """DataLoader(shuffle=True) and random_split draw with a host generator; under an
    accelerator default device `randperm` runs there and refuses it, as on real CUDA."""
    from torch.utils.data import DataLoader, TensorDataset, random_split

    with Simulator():
        with torch.device("cuda"):
            data = TensorDataset(torch.randn(8, 2))
            with pytest.raises(RuntimeError) as info:
                next(iter(DataLoader(data, batch_size=4, shuffle=True)))
            assert str(info.value) == GENERATOR
            with pytest.raises(RuntimeError, match="device type for generator"):
                random_split(data, [6, 2])
            # a generator on the default device: both work
            gen = torch.Generator(device="cuda")
            assert gen.device.type == "cuda"
            (batch,) = next(iter(DataLoader(data, batch_size=4, shuffle=True, generator=gen)))
            assert batch.is_cuda and len(random_split(data, [6, 2], generator=gen)[0]) == 6
        # and the other way round: a device generator given to a host op
        with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but found 'cuda'"):
            torch.randperm(4, generator=torch.Generator(device="cuda"))
        assert sorted(torch.randperm(4, generator=torch.Generator()).tolist()) == [0, 1, 2, 3]


def test_unindexed_cuda_is_the_current_device_of_each_process(monkeypatch):
    """With several simulated GPUs (a `ranks: N` fixture), `"cuda"` with no index is the
    current device: GPU 0 until `torch.cuda.set_device` picks another, as on real CUDA."""
    monkeypatch.setenv("DEVICELINT_SIM_GPUS", "2")
    with Simulator():
        assert torch.cuda.device_count() == 2
        assert str(torch.ones(1).cuda().device) == "cuda:0"
        torch.cuda.set_device(1)
        assert torch.cuda.current_device() == 1
        assert str(torch.ones(1).cuda().device) == "cuda:1"
        assert str(torch.ones(1).to(torch.device("cuda")).device) == "cuda:1"
        assert str(torch.zeros(1, device="cuda:0").device) == "cuda:0"
        with torch.cuda.device(0):
            assert str(torch.ones(1).to("cuda").device) == "cuda:0"
        with pytest.raises(RuntimeError, match="invalid device ordinal"):
            torch.cuda.set_device(2)
    with Simulator():
        assert torch.cuda.device_count() == 2 and str(torch.ones(1).cuda().device) == "cuda:0"  # a fresh process


def test_a_ranks_header_runs_the_pair_as_a_process_group():
    from devicelint.runtime.fixture import FixtureError, parse_header
    from devicelint.runtime.ranks import rank_envs
    from devicelint.runtime.runner import Run, _run_problem

    head = "# devicelint-fixture\n# expect: DL020 at 9\n# ranks: 2\n# runtime: raises DistBackendError: Duplicate GPU\n"
    assert parse_header(head).ranks == 2
    assert parse_header(head.replace("# ranks: 2\n", "")).ranks == 1
    with pytest.raises(FixtureError, match="ranks"):
        parse_header(head.replace("ranks: 2", "ranks: one"))
    envs = rank_envs(2, simulate=True)
    assert [(e["RANK"], e["LOCAL_RANK"], e["WORLD_SIZE"]) for e in envs] == [("0", "0", "2"), ("1", "1", "2")]
    assert envs[0]["MASTER_PORT"] == envs[1]["MASTER_PORT"] and envs[0]["DEVICELINT_SIM_GPUS"] == "2"
    assert "DEVICELINT_SIM_GPUS" not in rank_envs(2, simulate=False)[0]
    # too few real GPUs: not run, and said so (never a silent pass or a confusing failure)
    verdict, detail = _run_problem(Run("bad.py", None, "needs 2 GPUs (one process per GPU), this machine has 1: not run"))
    assert verdict == "no-runtime-proof" and "needs 2 GPUs" in detail

class _PlacingItems(torch.utils.data.Dataset):
    """`__getitem__` moves each item to the device (DL017)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3,), float(i)).to("cuda")


def test_a_dataloader_worker_cannot_use_cuda_once_the_parent_initialised_it():
    # real CUDA: the worker is forked after the parent's CUDA init, and torch.cuda._lazy_init
    # refuses a bad fork; the loader re-raises it in the main process
    with Simulator():
        torch.nn.Linear(3, 1).to("cuda")
        loader = torch.utils.data.DataLoader(_PlacingItems(), batch_size=4, num_workers=2)
        with pytest.raises(RuntimeError) as info:
            next(iter(loader))
    assert "Caught RuntimeError in DataLoader worker process" in str(info.value)
    assert "Cannot re-initialize CUDA in forked subprocess" in str(info.value)


def test_the_same_items_load_in_the_main_process():
    with Simulator():
        torch.nn.Linear(3, 1).to("cuda")
        batch = next(iter(torch.utils.data.DataLoader(_PlacingItems(), batch_size=4, num_workers=0)))
        assert batch.device.type == "cuda"


def test_pinning_a_cuda_tensor_raises_pytorch_text():
    with Simulator():
        with pytest.raises(RuntimeError) as info:
            torch.ones(2).cuda().pin_memory()
        assert str(info.value) == "cannot pin 'torch.cuda.FloatTensor' only dense CPU tensors can be pinned"
        loader = torch.utils.data.DataLoader(_PlacingItems(), batch_size=4, pin_memory=True)
        with pytest.raises(RuntimeError, match="cannot pin 'torch.cuda.FloatTensor'"):
            next(iter(loader))
        assert torch.ones(2).pin_memory().is_pinned()  # host tensors still pin


def test_optimizer_state_loaded_before_the_model_moves_stays_on_the_host():
    with Simulator():
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.Adam(model.parameters())
        model(torch.randn(3, 4)).sum().backward()
        opt.step()
        saved = opt.state_dict()
        model, opt = torch.nn.Linear(4, 2), None
        opt = torch.optim.Adam(model.parameters())
        opt.load_state_dict(saved)
        model.to("cuda")
        assert opt.state[model.weight]["exp_avg"].device.type == "cpu"
        model(torch.randn(3, 4, device="cuda")).sum().backward()
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            opt.step()


def test_saving_device_tensors_counts_one_copy_to_the_host_per_storage(tmp_path):
    """torch.save writes each CUDA storage through storage.cpu(): real CUDA counts one
    device-to-host copy (a sync) per distinct storage, host storages and repeats none."""
    rec = Recorder(__file__)
    with Simulator(rec):
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1)).cuda()
        optimizer = torch.optim.Adam(model.parameters())
        model(torch.randn(2, 3, device="cuda")).sum().backward()
        optimizer.step()  # exp_avg and exp_avg_sq on the device, step on the host
        state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "again": model[0].weight,
                 "host": torch.ones(3)}
        torch.save(state, tmp_path / "ckpt.pt")
        loaded = torch.load(tmp_path / "ckpt.pt", map_location="cpu")
    assert sum(rec.copies["d2h"].values()) == 4 + 8
    assert sum(rec.syncs.values()) == 4 + 8
    assert torch.equal(loaded["model"]["0.weight"], model[0].weight.detach())


def test_data_parallel_on_one_simulated_gpu_moves_the_module_and_runs_it_there():
    """nn.DataParallel on one GPU (what the DL012 fixtures run): its constructor moves the
    module to GPU 0, its forward scatters the batch there (no copy: it is there already)."""
    rec = Recorder(__file__)
    with Simulator(rec):
        model = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Linear(8, 2)))
        assert {p.device.type for p in model.parameters()} == {"cuda"}
        assert sum(rec.copies["h2d"].values()) == 4
        out = model(torch.randn(5, 3, device="cuda"))
        out.sum().backward()
        assert out.device.type == "cuda" and out.shape == (5, 2)
        assert model.module[0].weight.grad.device.type == "cuda"
    assert sum(rec.copies["h2d"].values()) == 4


def test_ddp_in_a_world_of_one_copies_no_gradient_across_devices(tmp_path):
    """DDP's gradient buckets are made in C++ with no tensor operand: they are on the
    parameters' GPU, so copying gradients in and out of them crosses nothing."""
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    rec = Recorder(__file__)
    with Simulator(rec):
        torch.cuda.set_device(0)
        dist.init_process_group("nccl", init_method=f"file://{tmp_path / 'store'}", rank=0, world_size=1)
        try:
            model = DDP(torch.nn.Linear(4, 2).to("cuda"), device_ids=[0])
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for _ in range(3):
                optimizer.zero_grad()
                model(torch.randn(8, 4, device="cuda")).sum().backward()
                optimizer.step()
            assert model.module.weight.grad.device.type == "cuda"
        finally:
            dist.destroy_process_group()
    assert sum(rec.copies["h2d"].values()) == 2  # the weight and the bias, once


class _HostItems(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.full((3,), float(i))


def _fork_warnings(monkeypatch, python_warns: bool, use_cuda_first: bool) -> list[str]:
    from devicelint.runtime import sim as sim_module

    monkeypatch.setattr(sim_module, "FORK_WARNS", python_warns)
    monkeypatch.setattr(sim_module, "_threads", lambda: 1)  # the test process may keep threads of its own
    rec = Recorder(__file__)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, filename, lineno, file=None, line=None: rec.warning(
            message, category, filename, lineno)
        with Simulator(rec):
            model = torch.nn.Linear(3, 1)
            if use_cuda_first:
                model.to("cuda")
            for _ in range(2):
                for batch in torch.utils.data.DataLoader(_HostItems(), batch_size=4, num_workers=2):
                    batch.to(next(model.parameters()).device)
    return [w["message"] for w in rec.warnings.values() if w["category"] == "DeprecationWarning"]


def test_forking_dataloader_workers_once_cuda_is_in_use_warns_as_python_312_does(monkeypatch):
    """CPython 3.12+ warns when a multi-threaded process forks, and a process using CUDA has
    the runtime's threads: DL017's fixed scripts (workers forked after the model went to the
    GPU) get one such warning on real CUDA. Forks before CUDA, or on Python 3.11, get none."""
    import os

    expected = f"This process (pid={os.getpid()}) is multi-threaded, use of fork() may lead to deadlocks in the child."
    assert _fork_warnings(monkeypatch, python_warns=True, use_cuda_first=True) == [expected]
    assert _fork_warnings(monkeypatch, python_warns=True, use_cuda_first=False) == []
    assert _fork_warnings(monkeypatch, python_warns=False, use_cuda_first=True) == []
