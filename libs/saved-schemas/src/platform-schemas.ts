/**
 * Schemas that ship with Gleaner (is_platform: true, readable by everyone, read-only), as YAML in
 * the schema language. Kept in code, not a data file, so every build and image carries them.
 */
export const PLATFORM_SCHEMAS_YAML = `# Schemas that ship with Gleaner (is_platform: true, readable by everyone, read-only).
# Each schema_yaml is in the schema language (shorthand form); see libs/schema/README.md.
- id: platform-product
  name: Product
  category: e-commerce
  description: A product page with price, availability and identifiers.
  tags: [product, e-commerce, price]
  schema_yaml: |
    name: string
    brand: string
    description: Short product description
    price: number
    currency: ISO 4217 currency code, e.g. USD
    availability: In stock, out of stock, preorder...
    sku: string
    gtin: GTIN / EAN / UPC barcode
    image_url: url
    rating: number
    review_count: integer
    attributes: [{name: string, value: string}]
- id: platform-article
  name: Article
  category: content
  description: A news or blog article.
  tags: [article, news, blog]
  schema_yaml: |
    title: string
    author: [string]
    published_at: datetime
    updated_at: datetime
    summary: Two-sentence summary of the article
    body: The article text
    section: string
    tags: [string]
    image_url: url
- id: platform-job-posting
  name: Job posting
  category: jobs
  description: A job advertisement.
  tags: [jobs, hiring]
  schema_yaml: |
    title: string
    company: string
    location: string
    remote: boolean
    employment_type: Full-time, part-time, contract, internship...
    salary_min: number
    salary_max: number
    salary_currency: ISO 4217 currency code
    posted_at: date
    apply_url: url
    requirements: [string]
    description: string
- id: platform-recipe
  name: Recipe
  category: food
  description: A cooking recipe.
  tags: [recipe, food]
  schema_yaml: |
    name: string
    author: string
    description: string
    prep_minutes: integer
    cook_minutes: integer
    servings: integer
    ingredients: [string]
    steps: [string]
    calories: number
    image_url: url
- id: platform-event
  name: Event
  category: events
  description: A concert, conference, meetup or other dated event.
  tags: [event, calendar]
  schema_yaml: |
    name: string
    starts_at: datetime
    ends_at: datetime
    venue: string
    address: string
    city: string
    organizer: string
    price: number
    currency: ISO 4217 currency code
    ticket_url: url
    description: string
`;
