"""Reads an XLSX file with openpyxl (Debian's python3-openpyxl), a reader apart from the service's
own libraries, and prints its first sheet as JSON: its name and its rows, each a list of cell
values (text, number, boolean, or null for an empty cell) as wide as the header row.

Used by test/interop/xlsx.interop-spec.ts."""
import json
import sys

import openpyxl

book = openpyxl.load_workbook(sys.argv[1], read_only=True)
sheet = book.worksheets[0]
rows = [list(row) for row in sheet.iter_rows(values_only=True)]
width = len(rows[0]) if rows else 0
print(json.dumps({"name": sheet.title, "rows": [row + [None] * (width - len(row)) for row in rows]}, ensure_ascii=False))
