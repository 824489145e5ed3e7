"""What Django REST Framework (3.14, Django 3.2: Debian's python3-djangorestframework) makes of a
written value, field by field: ModelSerializer fields of models declared with RSR's field rules
(akvo/rsr/models, its ValidXMLCharField validator and PostgreSQL's integer ranges), each value
run through the field's run_validation. Reads [{resource, field, value}] as JSON on stdin and
writes [{value} | {errors}] (test/drf-fields.test.ts compares them with this service's).
"""
import json, os, re, sys
import django
from django.conf import settings
settings.configure(INSTALLED_APPS=['django.contrib.contenttypes','django.contrib.auth','rest_framework'], DATABASES={'default':{'ENGINE':'django.db.backends.sqlite3','NAME':':memory:'}},
  REST_FRAMEWORK={'DATE_INPUT_FORMATS': ['iso-8601', '%d-%m-%Y'], 'COERCE_DECIMAL_TO_STRING': False}, USE_TZ=True)
django.setup()
from django.db.backends.base.operations import BaseDatabaseOperations
from django.db.backends.sqlite3.operations import DatabaseOperations
DatabaseOperations.integer_field_range = BaseDatabaseOperations.integer_field_range  # PostgreSQL's ranges, as RSR has them
from django.db import models
from django.core.exceptions import ValidationError
from rest_framework import serializers
from rest_framework.exceptions import ValidationError as DRFValidationError

def string_validator(value):
    """akvo.rsr.validators.string_validator, as RSR has it."""
    illegal = [(0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x84), (0x86, 0x9F), (0xFDD0, 0xFDDF), (0xFFFE, 0xFFFF)]
    illegal.extend((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0x10000, 0x110000, 0x10000))
    restricted = re.compile('[%s]' % ''.join('%s-%s' % (chr(low), chr(high)) for (low, high) in illegal))
    match = re.search(restricted, value)
    if match:
        raise ValidationError(match.group(0) + ' ' + 'is not an allowed character')


class VX(models.CharField):
    def __init__(self, *a, **k):
        super().__init__(*a, **k); self.validators += [string_validator]
class VT(models.TextField):
    def __init__(self, *a, **k):
        super().__init__(*a, **k); self.validators += [string_validator]

def codes(name):
    """A code list of the repository's codelists/ directory (argv[1]) as Django choices."""
    return [(item['code'], item['name']) for item in json.load(open(os.path.join(sys.argv[1], name + '.json')))]


CUR = codes('currency')
class BudgetItem(models.Model):
    other_extra = VX(max_length=30, null=True, blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    type = VX(blank=True, max_length=1, choices=[('1','Original'),('2','Revised')])
    period_start = models.DateField(null=True, blank=True)
    currency = VX(max_length=3, blank=True, choices=CUR)
    class Meta: app_label='rsr'
class Organisation(models.Model):
    name = VX(max_length=40, unique=True)
    long_name = VX(max_length=100, unique=True)
    language = VX(max_length=2, choices=[('en','en'),('es','es'),('fr','fr')], default='en')
    organisation_type = VX(max_length=1, choices=[('N','n'),('G','g'),('C','c'),('K','k')], blank=True, null=True)
    new_organisation_type = models.IntegerField(choices=[(int(code), name) for code, name in codes('organisation_type')], default=22)
    iati_org_id = VX(max_length=75, blank=True, null=True, unique=True, default=None)
    url = models.URLField(blank=True)
    contact_email = VX(blank=True, max_length=50)
    description = VT(blank=True)
    public_iati_file = models.BooleanField(default=True)
    class Meta: app_label='rsr'
class ProjectCustomField(models.Model):
    name = VX(max_length=255)
    section = models.IntegerField(choices=[(i, str(i)) for i in range(1, 11)])
    max_characters = models.IntegerField(blank=True, null=True)
    order = models.PositiveSmallIntegerField()
    class Meta: app_label='rsr'
class Transaction(models.Model):
    transaction_type = VX(blank=True, max_length=2, choices=codes('transaction_type'))
    humanitarian = models.BooleanField(null=True)
    value = models.DecimalField(blank=True, null=True, max_digits=14, decimal_places=2)
    class Meta: app_label='rsr'
class Link(models.Model):
    kind = VX(max_length=1, choices=[('A','a'),('E','e')], default='E')
    url = models.URLField()
    caption = VX(max_length=50, blank=True)
    class Meta: app_label='rsr'

def ser(model):
    return type(model.__name__+'S', (serializers.ModelSerializer,), {'Meta': type('Meta', (), {'model': model, 'fields': '__all__'})})()
SER = {'budget_item': ser(BudgetItem), 'organisation': ser(Organisation), 'project_custom_field': ser(ProjectCustomField), 'transaction': ser(Transaction), 'link': ser(Link)}
from django.http import QueryDict
from rest_framework.fields import SkipField, empty


def read_form(field, case):
    """A form field as Field.get_value reads HTML input: absent, or the text given."""
    form = QueryDict(mutable=True)
    if 'form' in case:
        form[case['field']] = case['form']
    field.root.partial = case['partial']
    value = field.get_value(form)
    try:
        return field.run_validation(value) if value is not empty or not case['partial'] else skip()
    except SkipField:
        return OMITTED


def skip():
    raise SkipField()


OMITTED = object()
out = []
for case in json.load(sys.stdin):
    field = SER[case['resource']].fields[case['field']]
    for v in field.validators[:]:
        if type(v).__name__ == 'UniqueValidator': field.validators.remove(v)
    try:
        value = read_form(field, case) if 'partial' in case else field.run_validation(case['value'])
        if value is OMITTED:
            out.append({'omitted': True})
            continue
        if hasattr(value, 'isoformat'): value = value.isoformat()
        elif type(value).__name__ == 'Decimal': value = float(value)
        out.append({'value': value})
    except DRFValidationError as e:
        out.append({'errors': [str(x) for x in e.detail]})
print(json.dumps(out))
