// Every budget item an API key may see, read page by page through `next`, as one table.
// Power BI Desktop: Get data > Blank query > Advanced editor; Excel: Data > Get Data >
// From Other Sources > Blank Query > Advanced Editor. Paste this, set Base and Key.
let
    Base = "http://localhost:8000",
    Key = "your-key",
    // The base address stays fixed and the page goes in Query: Power BI's service can then refresh it.
    Page = (page as number) =>
        Json.Document(
            Web.Contents(
                Base,
                [
                    RelativePath = "rest/v1/budget_item/",
                    Query = [limit = "1000", page = Number.ToText(page)],
                    Headers = [Authorization = "Token " & Key]
                ]
            )
        ),
    // One answer after another while the last one names a `next` page.
    Pages = List.Generate(
        () => [number = 1, answer = Page(1)],
        each _ <> null,
        each if [answer][next] = null then null else [number = [number] + 1, answer = Page([number] + 1)],
        each [answer][results]
    ),
    Records = List.Combine(Pages),
    Budget = Table.FromRecords(Records, null, MissingField.UseNull),
    Typed = Table.TransformColumnTypes(
        Budget,
        {{"amount", type number}, {"period_start", type date}, {"period_end", type date}, {"value_date", type date}}
    )
in
    Typed
