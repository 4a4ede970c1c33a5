"""``/api/openapi.json`` describes the app as it is: its paths and methods are the app's real
routes, its schemas are valid JSON Schema, and real responses validate against them."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from recipekg.web.app import create_app

DESCRIBED_PREFIXES = ("/api/", "/sparql")


@pytest.fixture(scope="module")
def app(kb):
    return create_app(kb)


@pytest.fixture(scope="module")
def doc(app):
    response = app.test_client().get("/api/openapi.json")
    assert response.status_code == 200 and response.content_type.startswith("application/json")
    return response.json


def validator(doc, schema) -> Draft202012Validator:
    """A validator of ``schema``, whose ``$ref`` point into ``doc`` as ``urn:openapi#/...``."""
    resource = Resource.from_contents(doc, default_specification=DRAFT202012)
    return Draft202012Validator(schema, registry=Registry().with_resource("urn:openapi", resource))


def response_schema(doc, path, method, status):
    content = doc["paths"][path][method]["responses"][str(status)]["content"]["application/json"]["schema"]
    return json.loads(json.dumps(content).replace('"#/components', '"urn:openapi#/components'))


def test_the_document_is_openapi_31_with_valid_json_schemas(doc):
    assert doc["openapi"].startswith("3.1") and doc["info"]["title"] == "recipekg"
    for name, schema in doc["components"]["schemas"].items():
        Draft202012Validator.check_schema(schema)
    for path, operations in doc["paths"].items():
        for method, op in operations.items():
            assert op["responses"] and op["summary"], (path, method)


def test_its_paths_are_the_apps_routes(app, doc):
    routes = {(rule.rule, method.lower()) for rule in app.url_map.iter_rules()
              for method in rule.methods - {"HEAD", "OPTIONS"}
              if rule.rule.startswith(DESCRIBED_PREFIXES)}
    described = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert {r for r in described if r[0] != "/"} == routes
    assert ("/", "get") in {(r.rule, m.lower()) for r in app.url_map.iter_rules() for m in r.methods}


@pytest.mark.parametrize("text, status", [
    ("recommend architecture where data = tabular and rows = 30k", 200),
    ("plan where params = 7B and hardware = h100", 200),
    ("explain vit where data = images", 200),
    ("recommend fix where symptom = loss-spike; plan where params = 1B", 200),
    ("recommend architecture where data = tabluar", 400),
    ("", 400),
])
def test_real_responses_validate_against_the_declared_schemas(app, doc, text, status):
    client = app.test_client()
    for path, method, response in (("/api/query", "get", client.get("/api/query", query_string={"q": text})),
                                   ("/api/query", "post", client.post("/api/query", json={"q": text})),
                                   ("/", "get", client.get("/", query_string={"q": text},
                                                           headers={"Accept": "application/json"}))):
        assert response.status_code == status, (path, method)
        errors = list(validator(doc, response_schema(doc, path, method, status)).iter_errors(response.json))
        assert not errors, (path, method, errors[:1])


def test_a_wrong_document_fails_the_schemas(doc):
    answer = validator(doc, response_schema(doc, "/api/query", "get", 200))
    error = validator(doc, response_schema(doc, "/api/query", "get", 400))
    assert not answer.is_valid({"statement": "predict", "query": "x", "constraints": []})
    assert not answer.is_valid([{"statement": "plan", "query": "plan", "constraints": []}])  # a list is 2+
    assert not error.is_valid({"error": {"kind": "syntax", "message": "m"}})


def test_the_schema_is_served_and_is_the_documents_components(app, doc):
    """``/api/schema`` is ``recipekg schema`` (whole, or one document by ``name``), and the
    OpenAPI document's components are its definitions, so the two cannot disagree."""
    from recipekg.contracts.documents import schema

    client = app.test_client()
    whole = client.get("/api/schema")
    assert whole.status_code == 200 and whole.mimetype == "application/schema+json"
    assert json.loads(whole.data) == schema()
    assert json.loads(client.get("/api/schema?name=plan").data) == schema("plan")
    missing = client.get("/api/schema?name=predict")
    assert missing.status_code == 404 and json.loads(missing.data)["error"]["kind"] == "usage"
    defs = json.loads(json.dumps(schema()["$defs"]).replace('"#/$defs/', '"#/components/schemas/'))
    assert doc["components"]["schemas"] == defs
