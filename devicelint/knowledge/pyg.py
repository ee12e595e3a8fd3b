"""PyTorch Geometric: graphs, graph datasets and loaders, models."""

from __future__ import annotations

LIBRARY = "torch_geometric"

CALL_ROOTS = ("torch_geometric",)
CALL_KINDS = (
    (r"torch_geometric\.data\.(Data|Batch|HeteroData)(\.from_data_list)?", "graph"),
    (r"torch_geometric\.datasets\.\w+", "graph_dataset"),
    # neighbour / cluster / link loaders sample batches from the graph (or feature store) they are given
    (r"torch_geometric\.loader\.\w*Loader", "graph_loader"),
    # pretrained QM9 models come with their dataset splits: `model, datasets = SchNet.from_qm9_pretrained(...)`
    (r"torch_geometric\.nn\.(models\.)?(SchNet|DimeNet|DimeNetPlusPlus)\.from_qm9_pretrained", "module_and_data"),
    # `to_hetero(model, metadata)` rewrites the model it is given: the result is where that model is
    (r"torch_geometric\.nn\.(to_hetero|to_hetero_with_bases)", "wrap"),
    # containers, wrappers and parameter-free aggregations say nothing of their own
    (r"torch_geometric\.nn\.(\w+\.)*(\w*Aggregation|Sequential|DataParallel|MessagePassing|\w*Explainer\w*)", None),
    # models and layers with weights (post-processing such as CorrectAndSmooth has none)
    (r"torch_geometric\.nn\.(models\.|conv\.|pool\.)?(\w+Conv|TopKPooling|SAGPooling|GraphSAGE|GCN|GAT|GIN|PNA|"
     r"EdgeCNN|SchNet|DimeNet|DimeNetPlusPlus|Node2Vec|MetaPath2Vec|GAE|VGAE|DeepGraphInfomax|MLP|GraphUNet|"
     r"AttentiveFP|LINKX|LightGCN|ViSNet|RECT_L|GRetriever)", "module"),
)

# PyG loaders that are torch DataLoaders underneath (`shuffle=True` builds torch's RandomSampler):
# what DL019 checks for a host generator
TORCH_LOADER_SUBCLASSES = frozenset({
    "torch_geometric.loader.DataLoader",
    "torch_geometric.loader.DenseDataLoader",
    "torch_geometric.data.DataLoader",
})
