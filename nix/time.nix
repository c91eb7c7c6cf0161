# Seconds since 1970 (UTC) -> "YYYY-MM-DDTHH:MM:SSZ", with builtins only, for the images'
# fixed creation time (toolchains/images.toml, sif.source_date_epoch; never "now").
# The date is the proleptic Gregorian calendar's (days-from-civil inverted).
epoch:
let
  pad = width: n:
    let s = toString n; in
    if builtins.stringLength s >= width then s else pad width "0${s}";
  days = epoch / 86400;
  secondsOfDay = epoch - days * 86400;
  z = days + 719468;                                  # days since 0000-03-01
  era = z / 146097;                                   # 400-year eras (epoch >= 0 here)
  dayOfEra = z - era * 146097;
  yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
  dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
  monthFromMarch = (5 * dayOfYear + 2) / 153;
  day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1;
  month = if monthFromMarch < 10 then monthFromMarch + 3 else monthFromMarch - 9;
  year = yearOfEra + era * 400 + (if month <= 2 then 1 else 0);
  hour = secondsOfDay / 3600;
  minute = (secondsOfDay - hour * 3600) / 60;
  second = secondsOfDay - hour * 3600 - minute * 60;
in
if !(builtins.isInt epoch) || epoch < 0 then
  throw "source_date_epoch must be a whole number of seconds since 1970, not ${builtins.toJSON epoch}"
else
  "${pad 4 year}-${pad 2 month}-${pad 2 day}T${pad 2 hour}:${pad 2 minute}:${pad 2 second}Z"
