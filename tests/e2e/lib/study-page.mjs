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

  /**
   * Reads a table into { headers, list: [{ <header>: <text> }], rows: { <first cell>: row } }
   * (`rows` keeps the last row of each first cell; use `list` when first cells repeat).
   */
  async readTable(id) {
    const table = this.byTestId(id);
    await table.locator('table').waitFor();
    return table.evaluate((element) => {
      const headers = [...element.querySelectorAll('thead th')].map((th) => th.textContent.trim());
      const list = [...element.querySelectorAll('tbody tr')].map((tr) => {
        const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent.trim());
        return Object.fromEntries(headers.map((header, i) => [header, cells[i]]));
      });
      const rows = Object.fromEntries(list.map((row) => [row[headers[0]], row]));
      return { headers, list, rows };
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
