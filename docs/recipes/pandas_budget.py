"""Every budget item an API key may see, read page by page through `next`, summed per currency.

    RSR_API_KEY=your-key python3 pandas_budget.py http://localhost:8000
"""
import os
import sys

import pandas as pd
import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

base = sys.argv[1] if len(sys.argv) > 1 else "http://localhost:8000"
session = requests.Session()
session.headers["Authorization"] = f"Token {os.environ['RSR_API_KEY']}"
# A busy service answers 429 or 503 with Retry-After: wait as long as it says, and ask again.
retry = Retry(total=5, status_forcelist=[429, 503], respect_retry_after_header=True)
session.mount(base, HTTPAdapter(max_retries=retry))

records = []
url = f"{base}/rest/v1/budget_item/?limit=1000"  # 1000 records a page, the most a page holds
while url:
    answer = session.get(url, timeout=60)
    answer.raise_for_status()
    page = answer.json()
    records.extend(page["results"])
    url = page["next"]  # None after the last page

budget = pd.DataFrame.from_records(records)
print(f"{len(budget)} budget items (the API counted {page['count']})")
for currency, amount in budget.groupby("currency_label")["amount"].sum().items():
    print(f"{currency}: {amount:.2f}")
