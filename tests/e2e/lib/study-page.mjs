// Page object for a study in the app: find elements by data-testid, act on them, read tables.

export class StudyPage {
  constructor(page, baseUrl) {
    this.page = page;
    this.baseUrl = baseUrl;
  }

  byTestId(id) {
    return this.page.locator(`[data-testid="${id}"]`);
  }

  /** Opens a permalink query (e.g. `?study=fastindex&view=table2`) and waits for the study. */
  async open(query) {
    await this.page.goto(`${this.baseUrl}/${query}`);
    await this.byTestId('study-title').waitFor({ timeout: 60000 });
  }

  async tab(name) {
    await this.byTestId(`tab-${name}`).click();
  }

  /** Reads a table into { headers, rows: { <first cell>: { <header>: <text> } } }. */
  async readTable(id) {
    const table = this.byTestId(id);
    await table.locator('table').waitFor();
    return table.evaluate((element) => {
      const headers = [...element.querySelectorAll('thead th')].map((th) => th.textContent.trim());
      const rows = {};
      for (const tr of element.querySelectorAll('tbody tr')) {
        const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent.trim());
        rows[cells[0]] = Object.fromEntries(headers.map((header, i) => [header, cells[i]]));
      }
      return { headers, rows };
    });
  }

  async select(id, value) {
    await this.byTestId(id).selectOption(String(value));
  }

  async fill(id, value) {
    const input = this.byTestId(id);
    await input.fill(String(value));
    await input.dispatchEvent('change');
  }

  /** The current view's permalink. */
  async permalink() {
    return this.byTestId('permalink').getAttribute('href');
  }
}
