# Every budget item an API key may see, read page by page through `next`, summed per currency.
#
#   RSR_API_KEY=your-key Rscript httr2_budget.R http://localhost:8000
#
# Needs httr2 1.0 or later: install.packages("httr2")
library(httr2)

args <- commandArgs(trailingOnly = TRUE)
base <- if (length(args) > 0) args[[1]] else "http://localhost:8000"

request <- request(base) |>
  req_url_path_append("rest/v1/budget_item/") |>
  req_url_query(limit = 1000) |>                      # 1000 records a page, the most a page holds
  req_headers(Authorization = paste("Token", Sys.getenv("RSR_API_KEY"))) |>
  req_retry(max_tries = 5)                            # 429 and 503 say how long to wait (Retry-After)

# Each answer names the next page in its Link header (rel="next") as in its body's `next`.
pages <- req_perform_iterative(request, next_req = iterate_with_link_url(rel = "next"), max_reqs = Inf)

budget <- resps_data(pages, function(resp) resp_body_json(resp, simplifyVector = TRUE)$results)

cat(sprintf("%d budget items (the API counted %d)\n", nrow(budget), resp_body_json(pages[[1]])$count))
totals <- aggregate(amount ~ currency_label, data = budget, FUN = sum)
for (row in seq_len(nrow(totals))) cat(sprintf("%s: %.2f\n", totals$currency_label[row], totals$amount[row]))
