"""IRIs of the vocabularies recipekg uses, without importing rdflib.

A namespace knows its terms, so a misspelled one fails loudly, as with rdflib's
``DefinedNamespace``::

    >>> RKG.recommends
    'https://w3id.org/recipekg/ns#recommends'
    >>> RKG.recomends
    Traceback (most recent call last):
    AttributeError: 'recomends' is not a term of https://w3id.org/recipekg/ns#

tests/test_terms.py checks that every ``RKG`` term is declared in ``ontology/recipekg.ttl``.
"""

from __future__ import annotations


class Namespace(str):
    """A base IRI whose attributes are its (known) terms."""

    def __new__(cls, base: str, terms: str = ""):
        self = super().__new__(cls, base)
        self._terms = frozenset(terms.split())
        return self

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._terms and name not in self._terms:
            raise AttributeError(f"{name!r} is not a term of {str(self)}")
        return str(self) + name

    def term(self, name: str) -> str:
        """The IRI of ``name``; for local names that are not identifiers (``time-series``)."""
        return str(self) + name


BASE = "https://w3id.org/recipekg/"

RKG = Namespace(BASE + "ns#", """
    Entity Architecture ArchitectureFamily Optimizer Approach Technique Fix kindName
    FailureMode symptom Hardware memoryBytes bandwidthBytesPerSecond bf16PeakFlopsPerSecond
    fp16PeakFlopsPerSecond fp8PeakFlopsPerSecond interconnectBytesPerSecond interconnectKind
    powerWatts memoryKind devicesPerPackage supportsPrecision sameComputeAs gpuArchitecture ComputeTier
    DeviceType deviceType Trainer runsOnDevice shapeOf
    ModelConfiguration layers hiddenSize attentionHeads kvHeads vocabSize ffnHidden ffnMatrices experts
    expertsPerToken contextLength attentionWindow activeParams nominalParams embeddingMatrices
    Dimension DimensionKind Categorical Count Duration Bytes Ratio dimensionKind valueClass
    derivedVia derivedFrom derivedBy sizedBy runsOn defaultValue minValue maxValue planOnly capacityShare impliesValue
    DataModality Task Goal Preference InferenceBudget Availability Precision Horizon RecomputeMode
    TrainingMethod OffloadTarget OptimizerStep trainsWeights parallelLayout forMethod fixesHyperparameter fixedValue
    openInput coupledWith
    Rule Condition recommends advisesAgainst condition strength text section contradicts
    step stepOf Procedure dimension value minInclusive maxExclusive minExclusive maxInclusive
    Strength weight rank wording
    Formula expression output usesConstant Constant symbol low high unitLabel appliesTo quantity
    Fact ComputeEstimate params tokens flops gpuHours PublishedRun onHardware mfu learningRate batchTokens supersededBy
    attentionWidth trainingSeqLength dataModality
    bestFor memoryMultiple notes hyperparameter fixedBy cause
    Reference Section path order Paper key arxiv url venue authors originalPaper
    broaderTransitive ScoringModel unconstrainedFactor partlyCredit scoring
    DefaultRule ComparisonRule forKind defaultSupport question OrderedProcedure
    where roleName adviceGap nearestQuery nearestSection
    Hyperparameter sets valueNode scopeCondition recipeSection TrainingRegime trainedWith needsRegime asMethod combines bySection
    LearningRateSchedule
    ChoiceProperty PropertyAspect PropertyTest AtMost AtLeast OneOf NoneOf GivenByNaming propertyOf propertyOfKind aspect checks test via when
    problemFact differsFrom strict
    publishedTitle authorsComplete authorCount authorGroup booktitle journal volume number pages doi version accessed
""")
KB = Namespace(BASE + "id/")
RULE = Namespace(BASE + "rule/")
COND = Namespace(BASE + "cond/")
DIM = Namespace(BASE + "dim/")
PAPER = Namespace(BASE + "paper/")
SEC = Namespace(BASE + "section/")
FORMULA = Namespace(BASE + "formula/")
CONST = Namespace(BASE + "const/")
FACT = Namespace(BASE + "fact/")
CITE = Namespace(BASE + "citation/")

RDF = Namespace("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "type first rest nil")
RDFS = Namespace("http://www.w3.org/2000/01/rdf-schema#",
                 "label comment subClassOf subPropertyOf domain range Class")
OWL = Namespace("http://www.w3.org/2002/07/owl#",
                "Class ObjectProperty DatatypeProperty SymmetricProperty Ontology versionInfo sameAs "
                "equivalentClass equivalentProperty inverseOf")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#",
                "double decimal integer string boolean anyURI gYear float int long")
SKOS = Namespace("http://www.w3.org/2004/02/skos/core#",
                 "Concept broader narrower altLabel prefLabel notation definition exactMatch example")
PROV = Namespace("http://www.w3.org/ns/prov#", "wasDerivedFrom Entity")
CITO = Namespace("http://purl.org/spar/cito/",
                 "Citation hasCitingEntity hasCitedEntity hasCitationCharacterization "
                 "citesAsDataSource obtainsSupportFrom usesMethodIn citesAsAuthority citesAsEvidence")
DCTERMS = Namespace("http://purl.org/dc/terms/",
                    "title creator issued identifier isPartOf bibliographicCitation source "
                    "license publisher description")
FABIO = Namespace("http://purl.org/spar/fabio/")
SH = Namespace("http://www.w3.org/ns/shacl#")
QUDT = Namespace("http://qudt.org/schema/qudt/", "unit")
UNIT = Namespace("http://qudt.org/vocab/unit/")

PREFIXES = {
    "rkg": str(RKG), "kb": str(KB), "rule": str(RULE), "cond": str(COND), "dim": str(DIM),
    "paper": str(PAPER), "sec": str(SEC), "formula": str(FORMULA), "const": str(CONST),
    "fact": str(FACT), "cite": str(CITE), "rdf": str(RDF), "rdfs": str(RDFS), "owl": str(OWL),
    "xsd": str(XSD), "skos": str(SKOS), "prov": str(PROV), "cito": str(CITO), "dcterms": str(DCTERMS),
    "fabio": str(FABIO), "sh": str(SH), "qudt": str(QUDT), "unit": str(UNIT),
}


def local_name(iri: str) -> str:
    """The part of an IRI after its last ``/`` or ``#``: ``.../id/lightgbm`` → ``lightgbm``."""
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def shorten(iri: str) -> str:
    """``https://w3id.org/recipekg/id/vit`` → ``kb:vit`` (longest matching prefix)."""
    best = max((b for b in PREFIXES.values() if iri.startswith(b)), key=len, default=None)
    if best is None:
        return f"<{iri}>"
    name = next(p for p, b in PREFIXES.items() if b == best)
    return f"{name}:{iri[len(best):]}"
