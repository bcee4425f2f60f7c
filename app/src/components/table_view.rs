//! Renders an engine [`Table`] as HTML, cell texts exactly as the engine formatted them, with a
//! button that downloads the same table as CSV (full-precision numbers).

use leptos::prelude::*;
use routelens_engine::Table;

use crate::api;

/// One table with its title and a "Download CSV" button (`data-testid="csv-download"` inside the
/// table's own `data-testid` wrapper). Rows carry `data-row` (the first cell's text) and cells
/// `data-col` (their header), so a test can read a value by arm and column.
#[component]
pub fn TableView(
    /// The table to show.
    table: Table,
    /// The wrapper's `data-testid`, e.g. `table-file-recall`.
    testid: &'static str,
    /// Opens the cases behind a number: called with the row's key (its first cell) and the
    /// column's header when a number of the table is clicked (`data-testid="cell-cases"`).
    #[prop(optional)]
    open_cases: Option<Callback<(String, String)>>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let headers = table.headers.clone();
    let rows = table
        .rows
        .iter()
        .map(|row| {
            let key = row
                .first()
                .map(|cell| cell.text.clone())
                .unwrap_or_default();
            let cells = row
                .iter()
                .zip(&headers)
                .map(|(cell, header)| {
                    // An estimate's interval may go to a second line (never the page sideways);
                    // the cell's text is unchanged.
                    let shown = match (cell.interval, cell.text.split_once(" [")) {
                        (Some(_), Some((estimate, interval))) => view! {
                            {estimate.to_string()}
                            " "
                            <span class="ci">{format!("[{interval}")}</span>
                        }
                        .into_any(),
                        _ => cell.text.clone().into_any(),
                    };
                    let shown = match open_cases {
                        Some(open) if cell.value.is_some() => {
                            let at = (key.clone(), header.clone());
                            cases_link(shown, move || open.run(at.clone()))
                        }
                        _ => shown,
                    };
                    view! {
                        <td
                            data-col=header.clone()
                            class:num=cell.value.is_some()
                            class:estimate=cell.interval.is_some()
                        >
                            {shown}
                        </td>
                    }
                })
                .collect_view();
            view! { <tr data-row=key>{cells}</tr> }
        })
        .collect_view();
    let head = headers
        .iter()
        .map(|header| view! { <th>{header.clone()}</th> })
        .collect_view();
    let title = table.title.clone();
    let file_name = table.csv_file_name();
    let download = move |_| error.set(api::download_csv(&table).err().map(|e| e.to_string()));
    view! {
        <div class="table-view" data-testid=testid>
            <div class="table-head">
                <h3>{title}</h3>
                <button data-testid="csv-download" title=file_name on:click=download>
                    "Download CSV"
                </button>
                {move || error.get().map(|e| view! { <span class="error">{e}</span> })}
            </div>
            <div class="table-scroll">
                <table>
                    <thead>
                        <tr>{head}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </div>
    }
}

/// A number as a link to the cases behind it (`data-testid="cell-cases"`): a table's cell, or a
/// number of the paper page.
pub fn cases_link(shown: AnyView, open: impl Fn() + 'static) -> AnyView {
    view! {
        <a
            href="#"
            class="cell-link"
            data-testid="cell-cases"
            title="the cases behind this number"
            on:click=move |ev| {
                ev.prevent_default();
                open();
            }
        >
            {shown}
        </a>
    }
    .into_any()
}
